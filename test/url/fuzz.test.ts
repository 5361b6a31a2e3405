import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inert } from '../../src/client/inert.ts';
import { analyzeUrl, type UrlAnalysis } from '../../src/url/index.ts';

/** Everything a renderer prints from an analysis. */
const printed = (a: UrlAnalysis) => [
  a.display,
  a.displayHost ?? '',
  a.site ?? '',
  a.refusal?.message ?? '',
  ...a.segments.map((s) => s.text),
  ...a.warnings.map((w) => w.message),
];

// Characters that must never reach a screen raw: controls, bidi and format characters,
// separators, tag characters, variation selectors.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Variation_Selector}]/u;

function check(input: string): void {
  const a = analyzeUrl(input);
  expect(['ok', 'caution', 'danger', 'refused']).toContain(a.verdict);
  if (a.verdict === 'refused') {
    expect(a.href).toBeUndefined();
    return;
  }
  expect(a.segments.filter((s) => s.part === 'domain')).toHaveLength(1);
  for (const text of printed(a)) expect(UNPRINTABLE.test(text)).toBe(false);
  for (const text of printed(a)) expect(inert(text)).toBe(text);
}

const hostChar = fc.constantFrom(
  ...'abcxyz09-.',
  'ɢ',
  'ᴀ',
  'а',
  'о',
  'ӏ',
  'ß',
  'é',
  '\u0307',
  '\u0338',
  '\u2044',
  '\u30fb',
  '\u30fc',
  'ノ',
  '一',
  '例',
  'θ',
  'з',
  '\u200d',
  '\u202e',
  '\u0085',
  '\u{e0041}',
  '\ufe0f',
  '\u3164',
  '\uffa0',
  '\uf8ff',
  '%',
  '@',
  ':',
  '[',
  ']',
  '\\',
  '\u3002',
  'ｇ',
);
const label = fc.oneof(
  fc.string({ unit: hostChar, minLength: 1, maxLength: 12 }),
  fc.stringMatching(/^xn--[a-z0-9-]{0,12}$/),
  fc.constantFrom('google', 'apple', 'com', 'co', 'uk', 'github', 'io', 's3', 'amazonaws'),
);
const host = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 5 }).map((l) => l.join('.')),
  fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => `${l.join('.')}.`),
  fc.ipV4().map((ip) => ip),
  fc.ipV6().map((ip) => `[${ip}]`),
  fc.nat(0xffffffff).map((n) => String(n)),
);
const percent = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom(
    '%ff',
    '%',
    '%e2%80%ae',
    '%c2%85',
    '%00',
    '%zz',
    '%E2%80',
    '%2F',
    '%E3%85%A4',
    '%F3%A0%81%81',
  ),
);
const userinfo = fc.option(
  fc
    .tuple(percent, fc.option(percent, { nil: undefined }))
    .map(([u, p]) => (p === undefined ? `${u}@` : `${u}:${p}@`)),
  { nil: '' },
);
const port = fc.option(
  fc.oneof(fc.nat(70000).map(String), fc.string({ maxLength: 4 })).map((p) => `:${p}`),
  { nil: '' },
);
const rest = fc
  .tuple(percent, fc.string(), fc.string({ unit: 'binary', maxLength: 12 }))
  .map(([p, q, f]) => `/${p}?${q}#${f}`);
const scheme = fc.constantFrom(
  'https://',
  'http://',
  'HTTPS://',
  'https:',
  'https:///',
  'javascript:',
  '',
);
const urlish = fc
  .tuple(scheme, userinfo, host, port, rest)
  .map(([s, u, h, p, r]) => `${s}${u}${h}${p}${r}`);

describe('analyzeUrl never throws, and prints nothing unprintable', () => {
  it('on any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), check), { numRuns: 2000 });
  });
  it('on URL-ish strings built from hostile parts', () => {
    fc.assert(fc.property(urlish, check), { numRuns: 4000 });
  });
  it.each([
    'https://%ff@x.com/',
    'https://a%E3%85%A4b%EF%80%80@x.com/',
    'https://%ff:%fe@x.com/',
    'https://%@x.com/',
    'https://./',
    'https://../',
    'https://xn--/',
    'https://xn--a-uba.com./',
    'https://[::1]./',
    'http://0x7f.1./',
  ])('%s', (input) => check(input));
});
