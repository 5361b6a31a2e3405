/**
 * Scripts of a host label's characters, from the regex engine's own Unicode data, and the UTS #39
 * restriction levels Chromium's IDN display uses: one script (with Script_Extensions, Han/Kana/
 * Hangul/Bopomofo augmented to their writing systems) or "highly restrictive" (Latin with one of
 * the CJK writing systems). Common and Inherited characters count for every script; only
 * characters that passed the Allowed set reach here, so that leaves digits, "-", a few marks.
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
  'Grantha',
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

export type ScriptName = (typeof SCRIPTS)[number] | 'Other';

// One regex finds a character's Script (exactly one alternative matches).
const SCRIPT_OF = new RegExp(`^(?:${SCRIPTS.map((s) => `(\\p{sc=${s}})`).join('|')})$`, 'u');
const NEUTRAL = /^[\p{sc=Common}\p{sc=Inherited}]$/u;
const EXTENSIONS = SCRIPTS.map((s) => [s, new RegExp(`^\\p{scx=${s}}$`, 'u')] as const);

/** Script_Extensions of one character; empty for Common/Inherited used by every script. */
const cache = new Map<number, readonly ScriptName[]>();
const CACHE_MAX = 4096;
function extensions(ch: string): readonly ScriptName[] {
  const cp = ch.codePointAt(0) as number;
  const hit = cache.get(cp);
  if (hit !== undefined) return hit;
  let out: ScriptName[];
  if (NEUTRAL.test(ch)) out = EXTENSIONS.filter(([, re]) => re.test(ch)).map(([s]) => s);
  else {
    const m = SCRIPT_OF.exec(ch);
    const i = m === null ? -1 : m.findIndex((g, k) => k > 0 && g !== undefined) - 1;
    out = [i < 0 ? 'Other' : (SCRIPTS[i] as ScriptName)];
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(cp, out);
  return out;
}

/** Scripts a label uses, ignoring characters every script shares (digits, "-", most marks). */
export function scriptsOf(label: string): Set<ScriptName> {
  const found = new Set<ScriptName>();
  for (const ch of label) {
    const ext = extensions(ch);
    if (ext.length === 1) found.add(ext[0] as ScriptName);
  }
  return found;
}

// Writing systems a script belongs to, for the single-script test (UTS #39 augmented sets).
const AUGMENT: Partial<Record<ScriptName, readonly string[]>> = {
  Han: ['Han', 'Jpan', 'Kore', 'Hanb'],
  Hiragana: ['Hiragana', 'Jpan'],
  Katakana: ['Katakana', 'Jpan'],
  Hangul: ['Hangul', 'Kore'],
  Bopomofo: ['Bopomofo', 'Hanb'],
};

const CJK_SETS: readonly (readonly ScriptName[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

export type RestrictionLevel = 'single' | 'highly_restrictive' | 'mixed';

/** UTS #39 restriction level of a label: one (logical) script, Latin + one CJK system, or worse. */
const LATIN_ONLY = /^[\p{sc=Latn}0-9-]*$/u;

export function restrictionLevel(label: string): RestrictionLevel {
  if (LATIN_ONLY.test(label)) return 'single';
  let common: Set<string> | undefined;
  const sets: (readonly ScriptName[])[] = [];
  for (const ch of label) {
    const ext = extensions(ch);
    if (ext.length === 0) continue;
    if (ext.includes('Other')) return 'mixed';
    sets.push(ext);
    const augmented = new Set<string>(ext.flatMap((s) => AUGMENT[s] ?? [s]));
    if (common === undefined) common = augmented;
    else for (const s of common) if (!augmented.has(s)) common.delete(s);
  }
  if (common === undefined || common.size > 0) return 'single';
  const covered = CJK_SETS.some((allowed) =>
    sets.every((ext) => ext.some((s) => allowed.includes(s))),
  );
  return covered ? 'highly_restrictive' : 'mixed';
}
