/**
 * The characters a host label may show in Unicode: UTS #39 Identifier_Status=Allowed (pinned data
 * in allowed-data.ts) minus what Chromium also removes from IDN display (look-alikes of slashes,
 * hyphens and quotes, and rarely used Latin/Greek/Cyrillic extension blocks). Any other
 * character puts the whole host in punycode.
 */
import { ALLOWED_RANGES } from './allowed-data.ts';

/** [start, end] code point ranges removed from the Allowed set for display. */
export const DISPLAY_REMOVED: readonly (readonly [number, number])[] = [
  [0x0027, 0x0027], // ' apostrophe: reads as punctuation, never part of a real IDN
  [0x003a, 0x003a], // : colon: would read as a port
  [0x0138, 0x0138], // ĸ latin kra (historic, reads as k)
  [0x01cd, 0x01dc], // Latin Extended-B pinyin letters
  [0x02bb, 0x02bc], // ʻ ʼ quotation-mark look-alikes
  [0x02ec, 0x02ec], // ˬ modifier letter voicing
  [0x0338, 0x0338], // combining long solidus overlay: reads as a slash
  [0x058a, 0x058a], // Armenian hyphen
  [0x0620, 0x0620], // Arabic kashmiri yeh (renders blank in some system fonts)
  [0x0f8c, 0x0f8f], // Tibetan transliteration signs (render blank in some system fonts)
  [0x1c80, 0x1c8f], // Cyrillic Extended-C
  [0x1e00, 0x1e9b], // Latin Extended Additional
  [0x1f00, 0x1fff], // Greek Extended
  [0x2010, 0x2010], // ‐ hyphen (looks like "-")
  [0x2019, 0x2019], // ’ right single quotation mark
  [0x2027, 0x2027], // ‧ hyphenation point
  [0x30a0, 0x30a0], // ゠ katakana-hiragana double hyphen
  [0xa640, 0xa69f], // Cyrillic Extended-B
  [0xa720, 0xa7ff], // Latin Extended-D
];

let starts: Uint32Array | undefined;
let ends: Uint32Array | undefined;

function build(): void {
  const ranges: [number, number][] = [];
  for (const line of ALLOWED_RANGES) {
    for (const token of line.split(' ')) {
      const dash = token.indexOf('-');
      const a = Number.parseInt(dash < 0 ? token : token.slice(0, dash), 16);
      const b = dash < 0 ? a : Number.parseInt(token.slice(dash + 1), 16);
      ranges.push([a, b]);
    }
  }
  // Subtract the removed ranges (both lists are sorted).
  let cut = ranges;
  for (const [ra, rb] of DISPLAY_REMOVED) {
    const next: [number, number][] = [];
    for (const [a, b] of cut) {
      if (b < ra || a > rb) next.push([a, b]);
      else {
        if (a < ra) next.push([a, ra - 1]);
        if (b > rb) next.push([rb + 1, b]);
      }
    }
    cut = next;
  }
  starts = Uint32Array.from(cut, (r) => r[0]);
  ends = Uint32Array.from(cut, (r) => r[1]);
}

/** True when the code point may be shown in a host label. */
export function isDisplayAllowed(cp: number): boolean {
  if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || cp === 0x2d) return true;
  if (starts === undefined) build();
  const s = starts as Uint32Array;
  const e = ends as Uint32Array;
  let lo = 0;
  let hi = s.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (cp < (s[mid] as number)) hi = mid - 1;
    else if (cp > (e[mid] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}
