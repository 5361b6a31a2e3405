/** checkSchema warns about fields that look like they ask for sensitive information. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../src/schema/index.ts';
import { asciiLookAlike } from '../../src/url/confusables.ts';
import { CONFUSABLE_ENTRIES } from '../../src/url/confusables-data.ts';

function flagged(properties: Record<string, unknown>): string[] {
  const r = checkSchema({ type: 'object', properties });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.warnings.filter((w) => w.code === 'sensitive_field').map((w) => String(w.path[1]));
}

const str = (extra: Record<string, unknown> = {}) => ({ type: 'string', ...extra });

describe('sensitive fields', () => {
  it('every spelling of a name: camelCase, snake_case, kebab-case, upper case', () => {
    const names = [
      'password',
      'userPassword',
      'PASSWORD',
      'new_password',
      'passwd',
      'pwd',
      'passphrase',
      'apiKey',
      'api_key',
      'API-Key',
      'APIKey',
      'apikey',
      'accessKey',
      'secret',
      'clientSecret',
      'secret_key',
      'accessToken',
      'refresh_token',
      'bearer',
      'token',
      'otp',
      'privateKey',
      'cardNumber',
      'credit_card',
      'cvv',
      'CVC',
      'iban',
      'accountNumber',
      'routing-number',
      'ssn',
      'socialSecurity',
      'pin',
    ];
    const props = Object.fromEntries(names.map((n) => [n, str()]));
    expect(flagged(props).sort()).toEqual([...names].sort());
  });

  it('titles and descriptions count too', () => {
    expect(
      flagged({
        a: str({ title: 'API key' }),
        b: str({ description: 'Your card number, without spaces' }),
        c: { type: 'number', title: 'Bank account number' },
        d: str({ title: 'Sort code' }),
      }),
    ).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a description that says not to give something is not a request for it', () => {
    expect(
      flagged({
        a: str({ title: 'Nickname', description: 'Do not give us your PIN.' }),
        b: str({ title: 'Note', description: "Never enter a password here; we don't need it" }),
        c: str({ title: 'Code', description: "Don't worry, enter your PIN" }),
        d: str({ title: 'PIN', description: 'Do not share it with anyone else' }),
        e: str({ description: 'We never send mail. Your password' }),
      }),
    ).toEqual(['c', 'd', 'e']);
  });

  it('look-alikes that ask for no secret are left alone', () => {
    expect(
      flagged({
        maxTokens: { type: 'integer' },
        tokens: str(),
        keyboard: str(),
        secretary: str(),
        pinned: str(),
        passport_country: str(),
        accountName: str(),
        rememberPassword: { type: 'boolean' },
        tokenType: { type: 'string', enum: ['bearer', 'mac'] },
        amountPLN: { type: 'number' },
        step1Name: str(),
        api2Version: str(),
        corner: str(),
        cw: str(),
        CW: str(),
        opinion: str(),
        spinner: str(),
        boarding: str({ title: 'Boarding pass code' }),
        zone: str({ title: 'Pln', description: 'A B testing group: x y z' }),
      }),
    ).toEqual([]);
  });

  it('the warning says what the field looks like and what to use instead', () => {
    const r = checkSchema({ type: 'object', properties: { apiKey: str() } });
    expect(r.warnings).toContainEqual(
      expect.objectContaining({
        code: 'sensitive_field',
        path: ['properties', 'apiKey'],
        message: expect.stringMatching(/looks like it asks for an API key.*ask\.secret/),
      }),
    );
  });

  // What a person reads is what counts: a server cannot hide a password field from the caution
  // by spelling it with characters that look the same.
  const kindOf = (title: string) =>
    checkSchema({ type: 'object', properties: { f: str({ title }) } }).warnings.find(
      (w) => w.code === 'sensitive_field',
    )?.message;

  it.each([
    ['Cyrillic letters', 'Раssword'],
    ['Greek capitals', 'ΡΙΝ'],
    ['a Cyrillic o in token', 'Access tοken'],
    ['full-width letters', 'ｐａｓｓｗｏｒｄ'],
    ['mathematical letters', '𝐩𝐚𝐬𝐬𝐰𝐨𝐫𝐝'],
    ['a soft hyphen', 'pass\u00adword'],
    ['a zero-width space', 'pass\u200bword'],
    ['a zero-width joiner and a word joiner', 'to\u200dke\u2060n'],
    ['a direction mark', 'se\u200ecret'],
    ['combining marks', 'pässwörd'],
    ['digits read as letters', 'passw0rd'],
    ['digits in capitals', 'P4SSW0RD'],
    ['symbols read as letters', 'P@$$word'],
    ['a lower-case l among capitals', 'PlN'],
    ['a capital-I look-alike for l', 'SOCIAӀ SECURITY'],
    ['letters spelled out', 'p a s s w o r d'],
    ['letters with dots', 'P.I.N.'],
    ['a hyphen inside the word', 'pass-word'],
    ['a capital at the end', 'passworD'],
    ['mixed capitals', 'PaSSwoRD'],
    ['rn for m', 'Card nurnber'],
    ['vv for w', 'Passvvord'],
    ['full-width in a pair', 'API ｋｅｙ'],
  ])('sees through %s (%s)', (_what, title) => {
    expect(kindOf(title)).toMatch(/looks like it asks for/);
  });

  // Every letter of every word may be replaced by any character the Unicode confusables table
  // takes for it, in the word's case, or by a digit or symbol read as it, with invisible characters
  // between: still flagged.
  // Digits and symbols read as letters, and a lower-case l among capitals.
  const READ_AS: Record<string, string[]> = {
    o: ['0'],
    i: ['1', '|', '!'],
    e: ['3'],
    a: ['4', '@'],
    s: ['5', '$'],
    t: ['7'],
  };
  it('sees through any look-alike spelling (property)', () => {
    const lookAlikes = new Map<string, string[]>();
    for (const line of CONFUSABLE_ENTRIES)
      for (const entry of line.split(' ')) {
        const ch = String.fromCodePoint(Number.parseInt(entry.slice(0, entry.indexOf('=')), 16));
        const as = asciiLookAlike(ch);
        if (as !== undefined && as.length === 1)
          lookAlikes.set(as, [...(lookAlikes.get(as) ?? []), ch]);
      }
    const words = [
      'password',
      'passphrase',
      'secret',
      'token',
      'bearer',
      'apikey',
      'iban',
      'ssn',
      'cvv',
      'otp',
      'pin',
    ];
    const invisible = [
      '',
      '',
      '',
      '\u00ad',
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u034f',
    ];
    const spelling = fc
      .record({
        word: fc.constantFrom(...words),
        casing: fc.constantFrom('lower', 'upper', 'title'),
        picks: fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
        gaps: fc.array(fc.constantFrom(...invisible), { minLength: 10, maxLength: 10 }),
      })
      .map(({ word, casing, picks, gaps }) =>
        [...word]
          .map((letter, i) => {
            const cased =
              casing === 'upper' || (casing === 'title' && i === 0) ? letter.toUpperCase() : letter;
            const choices = [
              cased,
              ...(lookAlikes.get(cased) ?? []),
              ...(READ_AS[letter] ?? []),
              ...(casing === 'upper' && letter === 'i' ? ['l'] : []),
            ];
            return (
              (choices[(picks[i] ?? 0) % choices.length] as string) +
              (i < word.length - 1 ? gaps[i] : '')
            );
          })
          .join(''),
      );
    fc.assert(
      fc.property(spelling, (title) => {
        expect(kindOf(title), JSON.stringify(title)).toMatch(/looks like it asks for/);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a bounded prefix of a long text', () => {
    const long = `${'harmless words '.repeat(400)}password`;
    expect(kindOf('x'.repeat(10) + long.slice(0, 1000))).toBeUndefined();
    expect(kindOf(long)).toBeUndefined();
  });
});
