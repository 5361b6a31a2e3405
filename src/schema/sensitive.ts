/**
 * Fields that look like they ask for sensitive information. The spec says form mode must not be
 * used for passwords, API keys, tokens, payment or account numbers: those go through URL mode,
 * where the value never passes the client. `checkSchema` warns (`sensitive_field`); elicit/server
 * refuses to send such a form unless the author says the field is not one.
 *
 * Words are taken from the field's name (camelCase, snake_case and kebab-case split), title and
 * description; only text and number fields are judged (a yes/no or a choice asks for no secret).
 */
import { asciiLookAlike } from '../url/confusables.ts';
import type { Field } from './types.ts';

/** One word that is enough, and what it is. */
const WORDS: ReadonlyMap<string, string> = new Map([
  ['password', 'a password'],
  ['passwd', 'a password'],
  ['pwd', 'a password'],
  ['passphrase', 'a password'],
  ['passcode', 'a password'],
  ['pin', 'a PIN'],
  ['secret', 'a secret'],
  ['apikey', 'an API key'],
  ['token', 'a token'],
  ['bearer', 'a token'],
  ['otp', 'a one-time code'],
  ['totp', 'a one-time code'],
  ['privatekey', 'a private key'],
  ['cvv', 'a card security code'],
  ['cvc', 'a card security code'],
  ['cvv2', 'a card security code'],
  ['cardnumber', 'a card number'],
  ['creditcard', 'a card number'],
  ['iban', 'an account number'],
  ['accountnumber', 'an account number'],
  ['ssn', 'a social security number'],
]);

/** Two words in a row, and what they are. */
const PAIRS: ReadonlyMap<string, string> = new Map([
  ['api key', 'an API key'],
  ['api token', 'a token'],
  ['access key', 'an API key'],
  ['private key', 'a private key'],
  ['secret key', 'a secret'],
  ['credit card', 'a card number'],
  ['debit card', 'a card number'],
  ['card number', 'a card number'],
  ['security code', 'a card security code'],
  ['account number', 'an account number'],
  ['bank account', 'an account number'],
  ['routing number', 'an account number'],
  ['sort code', 'an account number'],
  ['social security', 'a social security number'],
  ['pass word', 'a password'],
  ['pass phrase', 'a password'],
]);

// At most this much of a name, title or description is read.
const MAX_TEXT = 2000;
const ASCII = /^[\0-\x7f]*$/;
// What a reader does not see: invisible characters (zero-width space, soft hyphen, joiners,
// direction marks, variation selectors) and combining marks ("pässwörd" reads as password).
const UNSEEN = /[\p{Default_Ignorable_Code_Point}\p{M}]/gu;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/**
 * The text as a person reads it: compatibility forms folded (full-width "ｐａｓｓ", mathematical
 * "𝐩𝐚𝐬𝐬"), unseen characters dropped, and every character that looks like an ASCII letter or
 * digit (Cyrillic "р", Greek "Ρ") replaced by it, keeping its case for the word split.
 */
function asRead(text: string): string {
  const s = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  if (ASCII.test(s)) return s;
  // Look-alikes first, as given ("˛" passes for "i" but decomposes to a space), then again after
  // the compatibility fold.
  let given = '';
  for (const ch of s) given += asciiLookAlike(ch) ?? ch;
  let out = '';
  for (const ch of given.normalize('NFKD').replace(UNSEEN, '')) out += asciiLookAlike(ch) ?? ch;
  return out;
}

// Characters read as letters inside a word ("passw0rd", "p@ssword", "p1n").
const READ_AS: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '|': 'i',
  '!': 'i',
};
// Letter pairs read as one letter: "cardnurnber", "passvvord".
const PAIRS_READ_AS = /rn|vv/g;
const pairRead = (m: string) => (m === 'rn' ? 'm' : 'w');
/** `word` with its look-alike letter pairs read as one letter (most words have none). */
const readPairs = (word: string): string =>
  word.includes('rn') || word.includes('vv') ? word.replace(PAIRS_READ_AS, pairRead) : word;

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
const SYMBOL = 4;
const OTHER = 5;
const SEPARATOR = 0;

// The kind of each ASCII character.
const ASCII_KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++)
  ASCII_KIND[c] =
    c >= 65 && c <= 90
      ? UPPER
      : c >= 97 && c <= 122
        ? LOWER
        : c >= 48 && c <= 57
          ? DIGIT
          : c === 64 || c === 36 || c === 124 || c === 33
            ? SYMBOL
            : SEPARATOR;

function kindOf(code: number, ch: string): number {
  if (code < 0x80) return ASCII_KIND[code] as number;
  return LETTER_OR_DIGIT.test(ch) ? OTHER : SEPARATOR;
}

/**
 * The words of `text` as read, each in two readings: `plain` (lower case) and `read` (digits and
 * symbols read as the letters they stand for, look-alike letter pairs as one). Words split at
 * anything but letters and digits and at camelCase, snake_case and kebab-case boundaries; a
 * lower-case "l" among capitals reads as "I" ("PlN"); spelled-out letters ("p a s s") join.
 * One pass; a word's second reading is made only when it differs from the first.
 */
function readWords(text: string): Readings {
  const s = asRead(text);
  // Lower case once; a text whose length changes in lower case is lowered word by word.
  const lowered = s.toLowerCase();
  const lower = (from: number, to: number) =>
    lowered.length === s.length ? lowered.slice(from, to) : s.slice(from, to).toLowerCase();
  const plain: string[] = [];
  const read: string[] = [];
  let start = -1; // where the current word starts in `s`
  let p: string | undefined; // its plain reading, once it has a symbol to leave out
  let r: string | undefined; // its second reading, once it differs
  let prev = SEPARATOR;
  // Where the current run of letters and digits began in `plain`: a run split into words is
  // also read whole ("PassWord", "passworD").
  let run = 0;
  const wholePlain: string[] = [];
  const wholeRead: string[] = [];
  const endRun = (at: number) => {
    end(at);
    if (plain.length - run >= 2) {
      wholePlain.push(plain.slice(run).join(''));
      wholeRead.push(readPairs(read.slice(run).join('')));
    }
    run = plain.length;
  };
  const end = (at: number) => {
    if (start === -1) return;
    const word = p ?? lower(start, at);
    const second = r ?? word;
    if (second.length > 0) {
      plain.push(word);
      read.push(readPairs(second));
    }
    start = -1;
    p = undefined;
    r = undefined;
  };
  const nextKind = (at: number) =>
    at < s.length ? kindOf(s.charCodeAt(at), s[at] as string) : SEPARATOR;
  for (let i = 0; i < s.length; ) {
    const at = i;
    const unit = s.charCodeAt(i);
    const code = unit < 0x80 ? unit : (s.codePointAt(i) as number);
    const ch = code > 0xffff ? s.slice(i, i + 2) : (s[i] as string);
    i += ch.length;
    const raw = kindOf(code, ch);
    if (raw === SEPARATOR) {
      endRun(at);
      prev = SEPARATOR;
      continue;
    }
    const stands = READ_AS[ch];
    // A digit or symbol read as a letter takes the case before it ("P4SSW0RD", "P@$$word"), and
    // starts no word of its own.
    const inherits = stands !== undefined && (prev === UPPER || prev === LOWER);
    let kind = stands === undefined ? raw : inherits ? prev : nextKind(i) === UPPER ? UPPER : LOWER;
    // "l" between capitals, or before one at a word's start, is a capital I to the eye.
    const eyeI = code === 108 && (prev === UPPER || prev === SEPARATOR) && nextKind(i) === UPPER;
    if (eyeI) kind = UPPER;
    // camelCase ("apiKey") and an acronym before a word ("APIKey") start a new word.
    if (
      kind === UPPER &&
      !inherits &&
      (prev === LOWER ||
        prev === DIGIT ||
        prev === SYMBOL ||
        (prev === UPPER && nextKind(i) === LOWER))
    )
      end(at);
    if (start === -1) start = at;
    const as = eyeI ? 'i' : stands;
    if (as !== undefined || p !== undefined || r !== undefined) {
      const sofar = lower(start, at);
      if (raw === SYMBOL) p ??= sofar;
      else if (p !== undefined) p += ch.toLowerCase();
      r = (r ?? sofar) + (as ?? ch.toLowerCase());
    }
    prev = kind;
  }
  endRun(s.length);
  return { ...joinSpelledOut(plain, read), wholePlain, wholeRead };
}

interface Readings {
  readonly plain: readonly string[];
  readonly read: readonly string[];
  readonly wholePlain: readonly string[];
  readonly wholeRead: readonly string[];
}

/** Runs of two or more one-letter words ("p a s s w o r d", "P.I.N.") read as one word. */
function joinSpelledOut(plain: string[], read: string[]): { plain: string[]; read: string[] } {
  if (!read.some((w, i) => w.length === 1 && read[i + 1]?.length === 1)) return { plain, read };
  const p: string[] = [];
  const r: string[] = [];
  for (let i = 0; i < read.length; ) {
    let j = i;
    while (j < read.length && read[j]?.length === 1) j++;
    if (j - i >= 2) {
      p.push(plain.slice(i, j).join(''));
      r.push(readPairs(read.slice(i, j).join('')));
      i = j;
    } else {
      p.push(plain[i] as string);
      r.push(read[i] as string);
      i++;
    }
  }
  return { plain: p, read: r };
}

/** The table, and the same table keyed by each entry as a capital I for l reads it. */
function withReadings(entries: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  const out = new Map(entries);
  // A capital I passes for an l: "SOCIAI SECURITY". (Letter pairs are read on the word side
  // only: "cw" is not a card code because "cvv" could be read as it.)
  for (const [k, v] of entries) out.set(k.replaceAll('l', 'i'), v);
  return out;
}
const WORDS_READ = withReadings(WORDS);
const PAIRS_READ = withReadings(PAIRS);
// The first words of pairs: most words start none, and need no pair built to look up.
const FIRSTS = new Set([...PAIRS_READ.keys()].map((k) => k.slice(0, k.indexOf(' '))));

const ONE_WORD = /^[a-z]+$/;

function kindIn(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  // One lower-case word (most field names): its readings without the reader.
  if (text.length <= 64 && ONE_WORD.test(text))
    return WORDS.get(text) ?? WORDS_READ.get(readPairs(text));
  const { plain, read, wholePlain, wholeRead } = readWords(text);
  for (let i = 0; i < wholeRead.length; i++) {
    const one = WORDS.get(wholePlain[i] as string) ?? WORDS_READ.get(wholeRead[i] as string);
    if (one !== undefined) return one;
  }
  for (let i = 0; i < read.length; i++) {
    const one = WORDS.get(plain[i] as string) ?? WORDS_READ.get(read[i] as string);
    if (one !== undefined) return one;
    if (i + 1 < read.length && (FIRSTS.has(plain[i] as string) || FIRSTS.has(read[i] as string))) {
      const two =
        PAIRS.get(`${plain[i]} ${plain[i + 1]}`) ?? PAIRS_READ.get(`${read[i]} ${read[i + 1]}`);
      if (two !== undefined) return two;
    }
  }
  return undefined;
}

// A clause that tells the person not to give something ("do not give us your PIN", "never
// enter a password here") is not a request for it. Only a negated verb of giving counts, up to
// the clause's end (a comma included), so "don't worry, enter your PIN" is still judged.
const NEGATED =
  /\b(?:do\s+not|don['’]t|never|must\s+not|should\s+not)\s+(?:ever\s+)?(?:give|share|enter|type|send|tell|provide|reveal|disclose|include|paste)\b[^,.;:!?\n]*/giu;

/**
 * What `field` looks like it asks for ("a password"), or undefined. The name and title say what
 * the field holds; the description is read without the clauses that say not to give something.
 */
export function sensitiveKind(field: Field): string | undefined {
  if (field.kind !== 'text' && field.kind !== 'number') return undefined;
  const description =
    field.description === undefined
      ? undefined
      : field.description.slice(0, MAX_TEXT).replace(NEGATED, ' ');
  return kindIn(field.name) ?? kindIn(field.title) ?? kindIn(description);
}
