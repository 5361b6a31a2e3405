import { describe, expect, it } from 'vitest';
import { analyzeUrl, decodeLabel, skeleton } from '../../src/url/index.ts';

const codes = (u: string) => analyzeUrl(u).warnings.map((w) => `${w.code}:${w.severity}`);

describe('refused outright', () => {
  it.each([
    ['javascript:alert(1)', 'scheme'],
    ['JavaScript:alert(1)', 'scheme'],
    ['data:text/html,<script>alert(1)</script>', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['vbscript:msgbox(1)', 'scheme'],
    ['intent://scan/#Intent;scheme=zxing;end', 'scheme'],
    ['http://example.com/', 'insecure'],
    ['https://exa\u202emple.com', 'invalid'],
    [`https://example.com/${'a'.repeat(2_000_000)}`, 'too_long'],
    [`https://${'a'.repeat(300)}.com`, 'too_long'],
    ['not a url', 'invalid'],
    ['', 'invalid'],
  ])('%s → %s, with nothing to open', (input, code) => {
    const a = analyzeUrl(input);
    expect(a.verdict).toBe('refused');
    expect(a.refusal?.code).toBe(code);
    expect(a.href).toBeUndefined();
    expect(a.refusal?.message.length).toBeGreaterThan(10);
  });
  it('allows plain http elsewhere only when asked, with a warning', () => {
    expect(codes('http://example.com/')).toEqual([]);
    expect(
      analyzeUrl('http://example.com/', { allowHttp: true }).warnings.map((w) => w.code),
    ).toEqual(['not_https']);
  });
});

describe('homographs are shown as punycode with a warning', () => {
  it.each([
    ['https://аpple.com', 'xn--pple-43d.com', ['mixed_script:danger', 'lookalike_domain:danger']],
    [
      'https://аррӏе.com',
      'xn--80ak6aa92e.com',
      ['whole_script_confusable:danger', 'lookalike_domain:danger'],
    ],
    ['https://gօօgle.com', 'xn--ggle-vifa.com', ['mixed_script:danger', 'lookalike_domain:danger']],
    ['https://googlé.com', 'xn--googl-fsa.com', ['lookalike_domain:danger']],
    ['https://faß.de', 'xn--fa-hia.de', ['deviation_character:danger', 'idn:caution']],
  ])('%s', (input, shown, warnings) => {
    const a = analyzeUrl(input);
    expect(a.verdict).toBe('danger');
    expect(a.displayHost).toBe(shown);
    expect(a.site).toBe(shown);
    expect(a.warnings.map((w) => `${w.code}:${w.severity}`)).toEqual(warnings);
  });
  it('names the look-alike', () => {
    expect(analyzeUrl('https://аpple.com').warnings[1]?.message).toBe(
      'аpple.com looks like apple.com but is a different site.',
    );
    expect(codes('https://rnicrosoft.com')).toEqual(['lookalike_domain:danger']);
  });
  it('gives the look-alike and the name it imitates, for a renderer to set side by side', () => {
    expect(analyzeUrl('https://аpple.com').warnings[1]?.lookalike).toEqual({
      name: 'аpple.com',
      imitates: 'apple.com',
    });
    expect(analyzeUrl('https://rnicrosoft.com').warnings[0]?.lookalike).toEqual({
      name: 'rnicrosoft.com',
      imitates: 'microsoft.com',
    });
  });
  it('keeps a readable international name readable, with a neutral note', () => {
    const a = analyzeUrl('https://münchen.de/karte');
    expect(a.verdict).toBe('ok');
    expect(a.display).toBe('https://münchen.de/karte');
    expect(a.warnings).toEqual([
      {
        code: 'idn',
        severity: 'info',
        message: 'This name uses international characters: münchen.de (xn--mnchen-3ya.de).',
      },
    ]);
  });
  it('says when full-width text was normalised to a plain name', () => {
    const a = analyzeUrl('https://ｇｏｏｇｌｅ.com');
    expect(a.displayHost).toBe('google.com');
    expect(codes('https://ｇｏｏｇｌｅ.com')).toEqual(['normalized:caution']);
  });
});

describe('what the site really is', () => {
  it('hides userinfo, warns, and opens without it', () => {
    const a = analyzeUrl('https://google.com@evil.example/');
    expect(a.site).toBe('evil.example');
    expect(a.display).toBe('https://evil.example');
    expect(a.href).toBe('https://evil.example/');
    expect(a.warnings[0]).toEqual({
      code: 'userinfo',
      severity: 'danger',
      message: 'The address hides text before "@" ("google.com"); the site is really evil.example.',
    });
  });
  it('marks the registrable domain, with the PSL private section', () => {
    const a = analyzeUrl('https://login.microsoftonline.com.evil.co.uk/');
    expect(a.segments).toEqual([
      { text: 'https://', part: 'scheme' },
      { text: 'login.microsoftonline.com.', part: 'subdomain' },
      { text: 'evil.co.uk', part: 'domain' },
    ]);
    expect(codes('https://login.microsoftonline.com.evil.co.uk/')).toEqual([
      'lookalike_subdomain:caution',
    ]);
    const pages = analyzeUrl('https://attacker.github.io/');
    expect(pages.site).toBe('attacker.github.io');
    expect(pages.verdict).toBe('ok');
  });
  it('flags IP literals in any notation', () => {
    for (const input of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/']) {
      const a = analyzeUrl(input);
      expect(a.displayHost).toBe('127.0.0.1');
      expect(a.warnings.map((w) => w.code)).toContain('unusual_ip_notation');
    }
    expect(codes('https://93.184.216.34/')).toEqual(['ip_literal:caution']);
    expect(codes('https://[2001:db8::1]/')).toEqual(['ip_literal:caution']);
  });
  it('never cuts the site when shortening', () => {
    const a = analyzeUrl(
      `https://${'sub.'.repeat(40)}example.com/${'p'.repeat(500)}?q=${'x'.repeat(300)}`,
    );
    expect(a.segments.find((s) => s.part === 'domain')?.text).toBe('example.com');
    expect(a.display.length).toBeLessThanOrEqual(170);
    expect(a.warnings.map((w) => w.code)).toContain('truncated');
    expect(a.href?.length).toBeGreaterThan(800);
  });
  it('keeps loopback http usable', () => {
    const a = analyzeUrl('http://localhost:3000/callback?x=1');
    expect(a.verdict).toBe('ok');
    expect(a.display).toBe('http://localhost:3000/callback?x=1');
  });
});

describe('building blocks', () => {
  it('decodes punycode', () => {
    expect(decodeLabel('xn--mnchen-3ya')).toBe('münchen');
    expect(decodeLabel('xn--80ak6aa92e')).toBe('аррӏе');
    expect(decodeLabel('xn--zz')).toBeUndefined();
  });
  it('skeletons collapse look-alikes', () => {
    expect(skeleton('аррӏе')).toBe(skeleton('apple'));
    expect(skeleton('gօօgle')).toBe(skeleton('google'));
    expect(skeleton('rn')).toBe(skeleton('m'));
  });
});
