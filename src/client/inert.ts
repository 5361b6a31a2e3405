/**
 * Server text made inert for display: terminal escapes, control characters (C0, C1, DEL), bidi
 * controls, zero-width and other default-ignorable or format characters (tag characters,
 * fillers, invisible operators), lone surrogates, and variation selectors anywhere but right
 * after a visible character are shown as visible `⟨U+XXXX⟩` markers (a zero-width joiner only
 * inside an emoji sequence such as 👩🏽‍💻 stays, so it shows as one emoji); line and paragraph
 * separators become spaces (so text cannot forge lines), and length is capped. URLs inside stay
 * plain text: only the URL of a URL-mode request is ever offered for opening. Pure: the web
 * elements use it too.
 */
const ESCAPE_SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// Tab and line feed are handled by `multiline`; everything else in the class becomes a marker.
const UNSAFE =
  /[^\P{Cc}\t\n]|[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Co}\p{Noncharacter_Code_Point}]/gu;
const SELECTOR = /^\p{Variation_Selector}$/u;
const VISIBLE_BASE = /^[^\p{Cc}\p{Cf}\p{M}\p{Default_Ignorable_Code_Point}\s]$/u;

function codePointBefore(s: string, at: number): string {
  const low = s.charCodeAt(at - 1);
  const from = low >= 0xdc00 && low <= 0xdfff && at >= 2 ? at - 2 : at - 1;
  return String.fromCodePoint(s.codePointAt(from) ?? 0);
}

// One emoji/text presentation selector (U+FE0E, U+FE0F) right after a visible character is
// ordinary emoji; any other variation selector, or a run of them, can carry hidden data.
function keptSelector(c: string, at: number, s: string): boolean {
  if (c !== '\ufe0e' && c !== '\ufe0f') return false;
  if (at === 0 || !VISIBLE_BASE.test(codePointBefore(s, at))) return false;
  const next = s.codePointAt(at + 1);
  return next === undefined || !SELECTOR.test(String.fromCodePoint(next));
}

// The previous code point ends an emoji (a pictograph, a skin tone or an emoji selector after
// one) and the next begins one: a joiner there builds one emoji and hides nothing.
const EMOJI_END = /\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|\ufe0f)?$/u;
const EMOJI_START = /^\p{Extended_Pictographic}/u;
function keptJoiner(c: string, at: number, s: string): boolean {
  return (
    c === '\u200d' &&
    EMOJI_END.test(s.slice(Math.max(0, at - 4), at)) &&
    EMOJI_START.test(s.slice(at + 1, at + 3))
  );
}

const marker = (c: string) =>
  `⟨U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}⟩`;

export function inert(text: unknown, max = 2000, multiline = true): string {
  let s = typeof text === 'string' ? text : String(text ?? '');
  const original = s.length;
  if (s.length > max * 4) s = s.slice(0, max * 4); // bound the work before rewriting
  s = s.replace(ESCAPE_SEQUENCE, (m) => `⟨ESC${JSON.stringify(m.slice(1)).slice(1, -1)}⟩`);
  s = s.replace(/\r\n?/g, '\n');
  s = s.replace(UNSAFE, (c: string, at: number, all: string) =>
    keptSelector(c, at, all) || keptJoiner(c, at, all) ? c : marker(c),
  );
  s = s.replace(/[\u2028\u2029]/g, ' ');
  if (!multiline) s = s.replace(/[\n\t]+/g, ' ');
  const chars = [...s];
  if (chars.length <= max) return s;
  const hidden = original > s.length ? original - max : chars.length - max;
  return `${chars.slice(0, max).join('')}… (${hidden} more characters hidden)`;
}
