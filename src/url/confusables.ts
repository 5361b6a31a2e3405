/**
 * TR39 skeletons of host labels, from the pinned confusables table. `looseSkeleton` also drops
 * diacritics first, so "googlé" looks like "google" (as browsers' top-domain checks do).
 */
import { CONFUSABLE_ENTRIES } from './confusables-data.ts';

let table: Map<string, string> | undefined;
function map(): Map<string, string> {
  if (table === undefined) {
    table = new Map();
    for (const entry of CONFUSABLE_ENTRIES) {
      const [from] = entry;
      if (from !== undefined) table.set(from, entry.slice(from.length));
    }
  }
  return table;
}

export function skeleton(label: string): string {
  const m = map();
  let out = '';
  for (const ch of label.normalize('NFD')) out += m.get(ch) ?? ch.toLowerCase();
  return out.normalize('NFD');
}

export function looseSkeleton(label: string): string {
  return skeleton(label.normalize('NFD').replace(/\p{M}/gu, ''));
}

/** True when every character of the label has an ASCII look-alike (so the whole label can pose as ASCII). */
export function allConfusableWithAscii(label: string): boolean {
  const m = map();
  for (const ch of label.normalize('NFC')) {
    if (/^[a-z0-9-]$/.test(ch)) continue;
    if (!m.has(ch)) return false;
  }
  return true;
}
