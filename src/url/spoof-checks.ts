/**
 * Whether one decoded IDN label is safe to show in Unicode, following Chromium's IDN display
 * policy (components/url_formatter/spoof_checks): every character in the display-allowed set,
 * no deviation or invisible characters, one script or a highly restrictive mix, and none of the
 * known look-alike patterns (whole-script confusables, digit look-alikes, kana and CJK
 * characters that pass for slashes or Latin letters, dots above i/j/l, TLD-specific letters).
 */
import { isDisplayAllowed } from './allowed.ts';
import { type RestrictionLevel, restrictionLevel, scriptsOf } from './scripts.ts';

export type LabelProblemCode =
  | 'invalid_idn'
  | 'deviation_character'
  | 'disallowed_character'
  | 'invisible_character'
  | 'mixed_script'
  | 'mixed_numbers'
  | 'whole_script_confusable'
  | 'digit_lookalike'
  | 'dangerous_pattern';

export interface LabelProblem {
  readonly code: LabelProblemCode;
  /** The character or script at fault, as plain ASCII (code points as U+XXXX). */
  readonly detail: string;
}

export const codePoint = (ch: string): string =>
  `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

const DEVIATIONS = /[\u00df\u03c2\u200c\u200d]/u;

// Letters of a script that all look like Latin letters, with the TLDs where a label made only
// of them is expected (Chromium's whole-script confusable table; the larger Thai set).
const WHOLE_SCRIPT: readonly {
  script: string;
  letters: RegExp;
  lookalikes: string;
  tlds: readonly string[];
}[] = [
  { script: 'Armenian', letters: /\p{sc=Armn}/u, lookalikes: 'ագզէլհյոսւօՙ', tlds: ['am'] },
  {
    script: 'Cyrillic',
    letters: /\p{sc=Cyrl}/u,
    lookalikes: 'аысԁеԍһіюкјӏорԗԛѕтԝхуъьҽпгѵѡ',
    tlds: ['bg', 'by', 'kz', 'pyc', 'ru', 'su', 'ua', 'uz'],
  },
  { script: 'Ethiopic', letters: /\p{sc=Ethi}/u, lookalikes: 'ሀሠሰስበነተከዐዕዘጠፐꬅ', tlds: ['er', 'et'] },
  { script: 'Georgian', letters: /\p{sc=Geor}/u, lookalikes: 'იოყძხჽჿ', tlds: ['ge'] },
  { script: 'Greek', letters: /\p{sc=Grek}/u, lookalikes: 'αικνρυωηοτ', tlds: ['gr'] },
  { script: 'Hebrew', letters: /\p{sc=Hebr}/u, lookalikes: 'דוחיןסװײ׳ﬦ', tlds: ['il'] },
  { script: 'Bengali', letters: /\p{sc=Beng}/u, lookalikes: '০৭', tlds: [] },
  { script: 'Devanagari', letters: /\p{sc=Deva}/u, lookalikes: 'ऽ०ॱ', tlds: [] },
  { script: 'Gujarati', letters: /\p{sc=Gujr}/u, lookalikes: 'ડટ૦૧', tlds: [] },
  { script: 'Gurmukhi', letters: /\p{sc=Guru}/u, lookalikes: '੦੧', tlds: [] },
  { script: 'Kannada', letters: /\p{sc=Knda}/u, lookalikes: 'ಽ೦೧', tlds: [] },
  { script: 'Malayalam', letters: /\p{sc=Mlym}/u, lookalikes: 'ടഠധനറ൦', tlds: [] },
  { script: 'Oriya', letters: /\p{sc=Orya}/u, lookalikes: 'ଠ୦୮', tlds: [] },
  { script: 'Tamil', letters: /\p{sc=Taml}/u, lookalikes: 'டப௦', tlds: [] },
  { script: 'Telugu', letters: /\p{sc=Telu}/u, lookalikes: '౦౧', tlds: [] },
  {
    script: 'Myanmar',
    letters: /\p{sc=Mymr}/u,
    lookalikes: 'ခဂငထပဝ၀၂ၔၜ\u1090\u1091\u1095\u1096\u1097',
    tlds: ['mm'],
  },
  { script: 'Thai', letters: /\p{sc=Thai}/u, lookalikes: 'ทนบพรหเแ๐ดลปฟม', tlds: ['th'] },
];

// Characters that are, or look like, digits: a label made only of these and ASCII digits passes
// for a number.
const DIGIT_LOOKALIKES = new Set('θ२২੨૨೩೭շзҙӡउওਤ੩૩౩ဒვპੜკ੫丩ㄐճ৪੪୫૭୨౨');

const NOT_JAPANESE = '[^\\p{scx=Kana}\\p{scx=Hira}\\p{scx=Hani}]';
const NOT_CJK = '[^\\p{scx=Kana}\\p{scx=Hira}\\p{scx=Hani}\\p{scx=Bopo}]';
const SLASHLIKE = '[\\u30ce\\u30f3\\u30bd\\u30be\\u4e36\\u4e40\\u4e41\\u4e3f]';
const LATINLIKE_CJK =
  '[\\u4e00\\u3127\\u4e28\\u4e5b\\u4e03\\u4e05\\u5341\\u3007\\u3112\\u311a\\u311f\\u3128\\u3129' +
  '\\u3108\\u31ba\\u31b3\\u5de5\\u31b2\\u8ba0\\u4e01\\u4e36\\u4e85\\u4e8c\\u4ea0\\u5196\\u5b80\\u5ddb]';

/** Look-alike patterns, each with what it imitates (the warning says which). */
const DANGEROUS: readonly { what: string; re: RegExp }[] = [
  {
    what: 'a kana or CJK character that reads as a slash',
    re: new RegExp(
      `(?:^|${NOT_JAPANESE})${SLASHLIKE}${NOT_JAPANESE}|${NOT_JAPANESE}${SLASHLIKE}(?:$|${NOT_JAPANESE})`,
      'u',
    ),
  },
  {
    what: 'a katakana iteration mark outside katakana',
    re: /(?:^|[^\p{scx=Kana}])[\u30fd\u30fe]/u,
  },
  {
    what: 'a hiragana letter posing in katakana (or the reverse)',
    re: /^\p{scx=Kana}+[\u3078-\u307a]\p{scx=Kana}+$|^\p{scx=Hira}+[\u30d8-\u30da]\p{scx=Hira}+$/u,
  },
  {
    what: 'a prolonged sound mark or katakana middle dot outside kana',
    re: /(?:^|[^\p{scx=Kana}\p{scx=Hira}])\u30fc|[a-z\d-]\u30fb|\u30fb[a-z\d-]|^\u30fb|\u30fb$/u,
  },
  {
    what: 'a CJK character that reads as a Latin letter or a dash',
    re: new RegExp(`${NOT_CJK}${LATINLIKE_CJK}|${LATINLIKE_CJK}${NOT_CJK}`, 'u'),
  },
  {
    what: 'a combining mark not on a Latin, Greek or Cyrillic letter',
    re: /^\p{M}|[^\p{scx=Latn}\p{scx=Grek}\p{scx=Cyrl}][\u0300-\u0339]/u,
  },
  { what: 'a dotless i with a mark', re: /\u0131[\u0300-\u0339]/u },
  { what: 'a combining kana voiced sound mark', re: /[\u3099\u309a]/u },
  { what: 'a dot above i, j or l', re: /[ijl\u0131]\u0307/u },
];

const KANA_EXCEPTIONS = /[\u3078-\u307a\u30d8-\u30da\u30fb-\u30fe]/u;
const COMBINING_DIACRITICS = /[\u0300-\u0339]/u;
const NON_ASCII_LATIN = /(?![a-zA-Z])\p{sc=Latn}/u;
const ALL_LGC = /^[\p{sc=Latn}\p{sc=Grek}\p{sc=Cyrl}0-9_\-\u0300-\u0339]*$/u;
const DIGIT = /\p{Nd}/u;

/** Nd digits of different numbering systems in one label ("1" next to "١"). */
function mixesNumbers(label: string): boolean {
  let zero = -1;
  for (const ch of label) {
    if (!DIGIT.test(ch)) continue;
    const cp = ch.codePointAt(0) as number;
    // Decimal digits come in contiguous runs of whole blocks of ten, each starting at a zero.
    let start = cp;
    while (start > 0 && cp - start < 100 && DIGIT.test(String.fromCodePoint(start - 1))) start--;
    const base = cp - ((cp - start) % 10);
    if (zero === -1) zero = base;
    else if (zero !== base) return true;
  }
  return false;
}

function isDigitLookalike(label: string): boolean {
  let lookalike = false;
  for (const ch of label) {
    if (ch >= '0' && ch <= '9') continue;
    if (!DIGIT_LOOKALIKES.has(ch)) return false;
    lookalike = true;
  }
  return lookalike;
}

/** Repeated nonspacing marks (ICU's INVISIBLE check): "i" + two dots above shows as one. */
function repeatsMark(label: string): boolean {
  let prev = '';
  for (const ch of label.normalize('NFD')) {
    if (ch === prev && /\p{Mn}/u.test(ch)) return true;
    prev = ch;
  }
  return false;
}

function wholeScriptConfusable(label: string, tld: string, tldUnicode: string): string | undefined {
  // The label is one script here, so only the table entry of its first letter can apply.
  const first = /[^0-9-]/u.exec(label)?.[0];
  const w = first === undefined ? undefined : WHOLE_SCRIPT.find((e) => e.letters.test(first));
  if (w === undefined) return undefined;
  for (const ch of label) {
    if (w.letters.test(ch) && !w.lookalikes.includes(ch)) return undefined;
  }
  if (w.tlds.includes(tld) || [...tldUnicode].some((ch) => w.letters.test(ch))) return undefined;
  return w.script;
}

/**
 * Checks one label as decoded from punycode (`undefined` when it did not decode). `tld` is the
 * host's last label as written (punycode), `tldUnicode` decoded. Returns the first problem found.
 */
export function checkLabel(
  label: string | undefined,
  tld: string,
  tldUnicode: string,
): LabelProblem | undefined {
  if (label === undefined || label === '' || !/[^\0-\x7f]/.test(label))
    return { code: 'invalid_idn', detail: 'not valid punycode' };
  if (label.normalize('NFC') !== label || label.toLowerCase() !== label)
    return { code: 'invalid_idn', detail: 'not in the canonical form' };
  const deviation = DEVIATIONS.exec(label);
  if (deviation !== null) return { code: 'deviation_character', detail: codePoint(deviation[0]) };
  for (const ch of label) {
    if (!isDisplayAllowed(ch.codePointAt(0) as number)) {
      return { code: 'disallowed_character', detail: codePoint(ch) };
    }
  }
  if (repeatsMark(label)) return { code: 'invisible_character', detail: 'a repeated mark' };
  if (mixesNumbers(label)) return { code: 'mixed_numbers', detail: 'digits' };
  const level: RestrictionLevel = restrictionLevel(label);
  if (level === 'mixed') {
    return { code: 'mixed_script', detail: [...scriptsOf(label)].join(' + ') };
  }
  // Letters that belong to one country's names only.
  const long = [...label].length > 1;
  if (long && tld !== 'is' && tld !== 'fo' && /[\u00fe\u00f0]/.test(label))
    return { code: 'dangerous_pattern', detail: 'an Icelandic letter (þ or ð) outside .is' };
  if (long && tld !== 'az' && label.includes('\u0259'))
    return { code: 'dangerous_pattern', detail: 'a schwa (ə) outside .az' };
  if (
    label.includes('\u00b7') &&
    (tld !== 'cat' || /(?:^|[^l])\u00b7|\u00b7(?:[^l]|$)/.test(label))
  )
    return { code: 'dangerous_pattern', detail: 'a middle dot outside a Catalan l·l' };

  if (level === 'single' && !KANA_EXCEPTIONS.test(label) && !COMBINING_DIACRITICS.test(label)) {
    const script = wholeScriptConfusable(label, tld, tldUnicode);
    if (script !== undefined) return { code: 'whole_script_confusable', detail: script };
    if (isDigitLookalike(label)) return { code: 'digit_lookalike', detail: 'digits' };
    return undefined;
  }
  if (isDigitLookalike(label)) return { code: 'digit_lookalike', detail: 'digits' };
  if (level === 'highly_restrictive' && NON_ASCII_LATIN.test(label) && !ALL_LGC.test(label))
    return { code: 'mixed_script', detail: [...scriptsOf(label)].join(' + ') };
  for (const d of DANGEROUS)
    if (d.re.test(label)) return { code: 'dangerous_pattern', detail: d.what };
  return undefined;
}
