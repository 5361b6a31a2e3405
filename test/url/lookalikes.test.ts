import { describe, expect, it } from 'vitest';
import { analyzeUrl } from '../../src/url/index.ts';

const codes = (u: string) => analyzeUrl(u).warnings.map((w) => w.code);
const isAscii = (s: string | undefined) => s !== undefined && /^[\x21-\x7e]*$/.test(s);

describe('characters outside the UTS #39 Allowed set are never shown', () => {
  it.each([
    ['small capital G', 'https://ɢoogle.com/'],
    ['small capital A', 'https://ᴀpple.com/'],
    ['small capital N', 'https://amazoɴ.com/'],
    ['fraction slash (reads as a path)', 'https://paypal.com\u2044login.example/'],
    ['combining long solidus overlay', 'https://bank\u0338login.example/'],
    ['padlock', 'https://\u{1f512}secure-bank.example/'],
    ['arrow', 'https://bank\u2192login.example/'],
    ['hyphen look-alike U+2010', 'https://pay\u2010pal.example/'],
    ['non-breaking hyphen U+2011', 'https://pay\u2011pal.example/'],
    ['minus sign', 'https://pay\u2212pal.example/'],
    ['modifier letter turned comma', 'https://o\u02bbahu.example/'],
    ['latin kra', 'https://\u0138ey.example/'],
    ['Latin Extended Additional', 'https://\u1e9dpay.example/'],
    ['Greek Extended', 'https://\u1f10\u03bb\u03bb\u03b7\u03bd.example/'],
    ['a C1 control from punycode (NEL)', 'https://xn--a-la.example/'],
    ['a C1 control from punycode (CSI)', 'https://xn--a-uba.example/'],
    ['a bidi override from punycode', 'https://xn--ab-f4t.example/'],
  ])('%s: punycode, with a warning, never ok', (_what, input) => {
    const a = analyzeUrl(input);
    expect(a.verdict).not.toBe('ok');
    expect(a.verdict).not.toBe('refused');
    expect(isAscii(a.displayHost)).toBe(true);
    expect(isAscii(a.site)).toBe(true);
    expect(a.segments.every((s) => isAscii(s.text) || s.part === 'ellipsis')).toBe(true);
    expect(codes(input).length).toBeGreaterThan(0);
  });
  it('names the character by code point, not by showing it', () => {
    const a = analyzeUrl('https://xn--a-uba.example/');
    expect(a.warnings[0]).toEqual({
      code: 'disallowed_character',
      severity: 'caution',
      message:
        '"xn--a-uba" contains U+009B, a character not used in names, which can imitate another one.',
    });
  });
  it('letters with two readings are tried both ways against well-known sites', () => {
    for (const input of ['https://ıinkedin.com/', 'https://gıthub.com/', 'https://þaypal.com/']) {
      expect(analyzeUrl(input).verdict).toBe('danger');
      expect(codes(input)).toContain('lookalike_domain');
    }
  });
  it('small capitals are also caught as look-alikes of a well-known site', () => {
    expect(analyzeUrl('https://ɢoogle.com/').verdict).toBe('danger');
    expect(codes('https://ᴀpple.com/')).toContain('lookalike_domain');
  });
});

describe("Chromium's IDN spoof checks", () => {
  it.each([
    ['dot above after i', 'https://i\u0307nfo.example/', 'dangerous_pattern'],
    ['dot above after l', 'https://al\u0307pha.example/', 'dangerous_pattern'],
    ['katakana middle dot next to Latin', 'https://ab\u30fbcd.example/', 'dangerous_pattern'],
    ['prolonged sound mark after Latin', 'https://ab\u30fccd.example/', 'dangerous_pattern'],
    [
      'katakana no between Latin letters (a slash)',
      'https://a\u30ceb.example/',
      'dangerous_pattern',
    ],
    ['CJK one next to Latin (a dash)', 'https://a\u4e00b.example/', 'dangerous_pattern'],
    ['digit look-alikes only', 'https://\u0437\u0437\u0437.example/', 'digit_lookalike'],
    [
      'Cyrillic posing as Latin',
      'https://\u0441\u043e\u0440\u0435.com/',
      'whole_script_confusable',
    ],
    ['Greek posing as Latin', 'https://\u03b1\u03ba\u03b9.com/', 'whole_script_confusable'],
    ['Latin mixed with Cyrillic', 'https://p\u0430ypal.example/', 'mixed_script'],
    ['Latin mixed with Greek', 'https://\u03bfpen.example/', 'mixed_script'],
    ['digits of two number systems', 'https://a1\u0967.example/', 'mixed_numbers'],
    ['thorn outside .is', 'https://\u00feing.example/', 'dangerous_pattern'],
    ['middle dot outside Catalan l·l', 'https://a\u00b7b.example/', 'dangerous_pattern'],
    ['dotless i with a mark', 'https://\u0131\u0308x.example/', 'dangerous_pattern'],
    ['repeated mark', 'https://e\u0301\u0301x.example/', 'invisible_character'],
    ['punycode of plain ASCII', 'https://xn--abc-.example/', 'invalid_idn'],
    ['not valid punycode', 'https://xn--zz.example/', 'invalid_idn'],
    ['an empty punycode label', 'https://xn--.example/', 'invalid_idn'],
  ])('%s', (_what, input, code) => {
    const a = analyzeUrl(input);
    expect(a.verdict).toBe('danger');
    expect(codes(input)).toContain(code);
    expect(isAscii(a.displayHost)).toBe(true);
  });
  it.each([
    ['German', 'https://münchen.de/', 'münchen.de'],
    ['Japanese', 'https://例え.jp/', '例え.jp'],
    ['Russian under .рф', 'https://пример.рф/', 'пример.рф'],
    ['Cyrillic look-alike letters under .ru', 'https://аррӏе.ru/', 'аррӏе.ru'],
    ['Greek under .gr', 'https://ακι.gr/', 'ακι.gr'],
    ['Catalan l·l under .cat', 'https://col·lecció.cat/', 'col·lecció.cat'],
    ['Icelandic under .is', 'https://þing.is/', 'þing.is'],
    ['Latin with Han', 'https://abc中文.example/', 'abc中文.example'],
  ])('%s stays readable', (_what, input, shown) => {
    const a = analyzeUrl(input);
    expect(a.verdict).toBe('ok');
    expect(a.displayHost).toBe(shown);
  });
});

describe('the site is computed on the name, one trailing dot set aside', () => {
  it('a fully qualified name highlights the same site', () => {
    const a = analyzeUrl('https://x.evil.s3.amazonaws.com./login');
    expect(a.site).toBe('evil.s3.amazonaws.com');
    expect(a.segments.find((s) => s.part === 'domain')?.text).toBe('evil.s3.amazonaws.com');
    expect(a.href).toBe('https://x.evil.s3.amazonaws.com./login');
    expect(analyzeUrl('https://login.example.co.uk.').site).toBe('example.co.uk');
  });
  it('loopback stays loopback when fully qualified', () => {
    expect(analyzeUrl('http://localhost.:3000/cb').verdict).toBe('ok');
  });
  it('look-alikes are caught with a trailing dot too', () => {
    expect(codes('https://аpple.com.')).toContain('lookalike_domain');
  });
  it('refuses a name with an empty part', () => {
    for (const input of ['https://x..com/', 'https://example.com../']) {
      const a = analyzeUrl(input);
      expect(a.verdict).toBe('refused');
      expect(a.refusal?.code).toBe('invalid');
    }
  });
});

describe('raw input quoted in messages is visible', () => {
  it('an undecodable userinfo is quoted, not thrown', () => {
    const a = analyzeUrl('https://%ff@x.com/');
    expect(a.verdict).toBe('danger');
    expect(a.site).toBe('x.com');
    expect(a.warnings[0]?.message).toBe(
      'The address hides text before "@" ("%ff"); the site is really x.com.',
    );
  });
  it('controls and bidi characters in userinfo become markers', () => {
    const a = analyzeUrl('https://a%E2%80%AEb%C2%85@x.com/');
    expect(a.warnings[0]?.message).toContain('a⟨U+202E⟩b⟨U+0085⟩');
  });
});
