/**
 * Unicode script of each character of a host label, from the regex engine's own Unicode data
 * (`\p{Script=…}`), and Chromium-style "highly restrictive" mixing rules (UTS #39 §5.2).
 */
const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Canadian_Aboriginal',
  'Khmer',
  'Mongolian',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
  'Yi',
  'Lisu',
  'Vai',
  'Coptic',
  'Glagolitic',
  'Tifinagh',
  'Nko',
] as const;
const MATCHERS = SCRIPTS.map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, 'u')] as const);
const NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]$/u;

export type ScriptName = (typeof SCRIPTS)[number] | 'Other';

/** Scripts used by `label`, ignoring Common (digits, hyphen) and Inherited (combining marks). */
export function scriptsOf(label: string): Set<ScriptName> {
  const found = new Set<ScriptName>();
  for (const ch of label) {
    if (NEUTRAL.test(ch)) continue;
    const hit = MATCHERS.find(([, re]) => re.test(ch));
    found.add(hit === undefined ? 'Other' : hit[0]);
  }
  return found;
}

const CJK_SETS: readonly (readonly ScriptName[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

/** One script, or one of the CJK combinations UTS #39 "highly restrictive" allows. */
export function isHighlyRestrictive(scripts: ReadonlySet<ScriptName>): boolean {
  if (scripts.size <= 1) return !scripts.has('Other');
  return CJK_SETS.some((allowed) => [...scripts].every((s) => allowed.includes(s)));
}
