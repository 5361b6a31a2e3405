/**
 * Server text made inert for display: terminal escapes, control characters, bidi overrides and
 * invisible characters are shown as visible `⟨U+XXXX⟩` markers, line separators become spaces
 * (so text cannot forge lines), and length is capped. URLs inside stay plain text: only the URL
 * of a URL-mode request is ever offered for opening.
 */
const ESCAPE_SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

export function inert(text: unknown, max = 2000, multiline = true): string {
  let s = typeof text === 'string' ? text : String(text ?? '');
  const original = s.length;
  if (s.length > max * 4) s = s.slice(0, max * 4); // bound the work before rewriting
  s = s.replace(ESCAPE_SEQUENCE, (m) => `⟨ESC${JSON.stringify(m.slice(1)).slice(1, -1)}⟩`);
  s = s.replace(
    UNSAFE,
    (c) => `⟨U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
  s = s.replace(/[\u2028\u2029]/g, ' ');
  s = multiline ? s.replace(/\r\n?/g, '\n') : s.replace(/[\r\n\t]+/g, ' ');
  const chars = [...s];
  if (chars.length <= max) return s;
  const hidden = original > s.length ? original - max : chars.length - max;
  return `${chars.slice(0, max).join('')}… (${hidden} more characters hidden)`;
}
