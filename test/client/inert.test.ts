import { describe, expect, it } from 'vitest';
import { inert } from '../../src/client/inert.ts';
import { describeUrl } from '../../src/client/scripted.ts';
import type { UrlRequest } from '../../src/client/types.ts';
import { analyzeUrl, type UrlAnalysis } from '../../src/url/index.ts';

describe('inert() shows every invisible or reordering character as a marker', () => {
  it.each([
    ['C1 control NEL', 'a\u0085b', 'a⟨U+0085⟩b'],
    ['C1 control CSI (a terminal escape on its own)', 'a\u009b31mb', 'a⟨U+009B⟩31mb'],
    ['bidi isolate', 'a\u2066b\u2069', 'a⟨U+2066⟩b⟨U+2069⟩'],
    ['arabic letter mark', 'a\u061cb', 'a⟨U+061C⟩b'],
    ['word joiner', 'a\u2060b', 'a⟨U+2060⟩b'],
    ['invisible times', 'a\u2062b', 'a⟨U+2062⟩b'],
    ['tag characters (hidden text)', 'hi\u{e0041}\u{e0042}', 'hi⟨U+E0041⟩⟨U+E0042⟩'],
    ['hangul filler (an invisible letter)', 'a\u3164b', 'a⟨U+3164⟩b'],
    ['halfwidth hangul filler', 'a\uffa0b', 'a⟨U+FFA0⟩b'],
    ['combining grapheme joiner', 'a\u034fb', 'a⟨U+034F⟩b'],
    ['khmer invisible vowel', 'a\u17b4b', 'a⟨U+17B4⟩b'],
    ['mongolian variation selector', 'a\u180bb', 'a⟨U+180B⟩b'],
    ['a run of variation selectors (hidden bytes)', 'x\ufe01\ufe02', 'x⟨U+FE01⟩⟨U+FE02⟩'],
    ['a supplementary variation selector', 'x\u{e0100}', 'x⟨U+E0100⟩'],
    ['an emoji selector with nothing before it', '\ufe0fx', '⟨U+FE0F⟩x'],
    ['a doubled emoji selector', '\u2764\ufe0f\ufe0f', '\u2764⟨U+FE0F⟩⟨U+FE0F⟩'],
    ['a joiner between letters', 'a\u200db', 'a⟨U+200D⟩b'],
    ['a joiner after an emoji, before a letter', '\u{1f469}\u200dx', '\u{1f469}⟨U+200D⟩x'],
    ['a joiner before an emoji, after a letter', 'x\u200d\u{1f4bb}', 'x⟨U+200D⟩\u{1f4bb}'],
    [
      'a doubled joiner in an emoji',
      '\u{1f469}\u200d\u200d\u{1f4bb}',
      '\u{1f469}⟨U+200D⟩⟨U+200D⟩\u{1f4bb}',
    ],
    ['a lone surrogate', 'a\ud800b', 'a⟨U+D800⟩b'],
    ['a private-use character', 'a\uf8ffb', 'a⟨U+F8FF⟩b'],
    ['a noncharacter', 'a\ufffeb', 'a⟨U+FFFE⟩b'],
  ])('%s', (_what, input, shown) => {
    expect(inert(input)).toBe(shown);
  });
  it('keeps ordinary emoji, accents and line breaks', () => {
    expect(inert('ok \u2764\ufe0f \u{1f44d}\u{1f3fd} caf\u00e9 e\u0301')).toBe(
      'ok \u2764\ufe0f \u{1f44d}\u{1f3fd} caf\u00e9 e\u0301',
    );
    expect(inert('one\r\ntwo')).toBe('one\ntwo');
    // Emoji joined into one: a person at a computer with a skin tone, a heart on fire, a family.
    for (const emoji of [
      '\u{1f469}\u{1f3fd}\u200d\u{1f4bb}',
      '\u2764\ufe0f\u200d\u{1f525}',
      '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}',
    ])
      expect(inert(`a ${emoji} b`)).toBe(`a ${emoji} b`);
    expect(inert('one\r\ntwo\tthree', 100, false)).toBe('one two three');
  });
});

describe('the scripted renderer prints URL analyses inert', () => {
  const request = (analysis: UrlAnalysis): UrlRequest => ({
    server: { name: 'S', version: '1' },
    message: 'M',
    analysis,
    elicitationId: undefined,
    awaitDone: false,
    open: async () => {},
  });
  it('every string of an analysis, even one a host built by hand', () => {
    const a = analyzeUrl('https://example.com/');
    const forged: UrlAnalysis = {
      ...a,
      site: 'exa\u202emple.com',
      segments: [
        { text: 'https://', part: 'scheme' },
        { text: 'x\u0085.', part: 'subdomain' },
        { text: 'exa\u202emple.com', part: 'domain' },
      ],
      warnings: [{ code: 'idn', severity: 'info', message: 'w\u001b[2J' }],
    };
    const text = describeUrl(request(forged)).join('\n');
    expect(text).toContain('[exa⟨U+202E⟩mple.com]');
    expect(text).toContain('x⟨U+0085⟩.');
    expect(text).toContain('site: exa⟨U+202E⟩mple.com');
    expect(text).toContain('w⟨ESC[2J⟩');
    expect(/[\u0000-\u0009\u000b-\u001f\u0080-\u009f\u202e]/.test(text)).toBe(false);
  });
  it("a server's message cannot push the address, site and warnings away from the end", () => {
    const fake = `Sign in\n${'\n'.repeat(1999)}Address https://accounts.google.com/\nsite: google.com`;
    const lines = describeUrl({
      ...request(analyzeUrl('https://paypal.com.blogspot.com/login')),
      message: fake,
    });
    // The message is one bounded line; the host's own address, site and warnings come last.
    expect(lines[0]).toMatch(/^S wants you to open a page: Sign in +Address/);
    expect(lines[0]?.length).toBeLessThan(400);
    expect(lines.filter((l) => l.startsWith('  site: '))).toEqual(['  site: com.blogspot.com']);
    const warning = lines.findIndex(
      (l) => l.startsWith('  [danger]') || l.startsWith('  [caution]'),
    );
    expect(warning).toBeGreaterThan(lines.findIndex((l) => l.startsWith('  site: ')));
    expect(lines.at(-1)).toMatch(/paypal\.com/);
  });
  it('a C1 control in a punycode label never reaches the output', () => {
    const text = describeUrl(request(analyzeUrl('https://xn--a-uba.example/'))).join('\n');
    expect(text).toContain('[xn--a-uba.example]');
    expect(/[\u0080-\u009f]/.test(text)).toBe(false);
  });
});
