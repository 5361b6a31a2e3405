/**
 * TR39 skeletons of host names, from the pinned confusables table (plus the look-alikes browsers
 * add). `looseSkeleton` also drops diacritics first, so "googlé" looks like "google" (as
 * browsers' top-domain checks do), and `skeletons` tries both readings of the few letters that
 * pass for two different ones (þ is b or p, ł is l or t).
 */
import { CONFUSABLE_ENTRIES } from './confusables-data.ts';

let table: Map<string, string> | undefined;
function map(): Map<string, string> {
  // Built again while empty: the browser bundle fills the entries on demand.
  if (table === undefined || table.size === 0) {
    table = new Map();
    for (const line of CONFUSABLE_ENTRIES) {
      for (const entry of line.split(' ')) {
        const eq = entry.indexOf('=');
        table.set(
          String.fromCodePoint(Number.parseInt(entry.slice(0, eq), 16)),
          entry.slice(eq + 1),
        );
      }
    }
  }
  return table;
}

const ASCII = /^[\0-\x7f]*$/;
const ASCII_TEXT = /^[\x20-\x7e]+$/;
let cased: Map<string, string> | undefined;

/**
 * The ASCII letter or digit a non-ASCII character is taken for ("р" Cyrillic er is "p"), in the
 * character's case where it has one; undefined when it looks like none.
 */
export function asciiLookAlike(ch: string): string | undefined {
  if (ch.charCodeAt(0) < 0x80) return undefined; // ASCII is itself: the table is not needed
  if (cased === undefined || cased.size === 0) {
    cased = new Map();
    for (const [c, proto] of map()) {
      if (c.charCodeAt(0) < 0x80 || !ASCII_TEXT.test(proto)) continue;
      // Prototypes are lower case, and a capital that looks like "l" is one that looks like "I".
      const upper = c !== c.toLowerCase();
      cased.set(c, !upper ? proto : proto === 'l' ? 'I' : proto.toUpperCase());
    }
  }
  return cased.get(ch);
}

export function skeleton(label: string): string {
  const m = map();
  if (ASCII.test(label)) {
    let out = '';
    for (let i = 0; i < label.length; i++) {
      const ch = label[i] as string;
      out += m.get(ch) ?? ch.toLowerCase();
    }
    return out;
  }
  let out = '';
  for (const ch of label.normalize('NFD')) out += m.get(ch) ?? ch.toLowerCase();
  return out.normalize('NFD');
}

// Letters whose diacritic is part of the letter for NFD, dropped for the loose skeleton too.
const STROKES: Readonly<Record<string, string>> = { ł: 'l', ø: 'o', đ: 'd', ħ: 'h', ŧ: 't' };

export function looseSkeleton(label: string): string {
  if (ASCII.test(label)) return skeleton(label);
  return skeleton(
    label
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .replace(/[łøđħŧ]/g, (c) => STROKES[c] ?? c),
  );
}

/** Letters that read as either of two others. */
const TWO_READINGS: Readonly<Record<string, readonly [string, string]>> = {
  þ: ['b', 'p'],
  œ: ['ce', 'oe'],
  ł: ['l', 't'],
  ı: ['l', 'i'],
};
const HAS_TWO = /[þœłı]/u;
const MAX_TWO = 5; // 2^5 variants at most

/** Every spelling of `host` with each two-reading letter replaced by either reading. */
export function readings(host: string): string[] {
  if (!HAS_TWO.test(host)) return [host];
  let out = [''];
  let count = 0;
  for (const ch of host) {
    const two = TWO_READINGS[ch];
    if (two === undefined || ++count > MAX_TWO) out = out.map((s) => s + ch);
    else out = out.flatMap((s) => [s + two[0], s + two[1]]);
  }
  return out;
}
