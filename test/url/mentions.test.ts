import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeUrl, WELL_KNOWN_DOMAINS } from '../../src/url/index.ts';

const MENTION = new Set(['lookalike_subdomain', 'lookalike_domain']);
const mentions = (input: string) => analyzeUrl(input).warnings.filter((w) => MENTION.has(w.code));

describe('a well-known name outside its own site is a warning naming both', () => {
  it.each([
    // Across the site boundary: the highlighted site carries part of the name.
    ['paypal.com.s3.amazonaws.com', 'paypal.com', 'com.s3.amazonaws.com', 'danger'],
    ['login.microsoftonline.com.github.io', 'microsoftonline.com', 'com.github.io', 'danger'],
    ['paypal.com.blogspot.com', 'paypal.com', 'com.blogspot.com', 'danger'],
    ['appleid.apple.com.us.com', 'apple.com', 'com.us.com', 'danger'],
    ['paypal.com.zip', 'paypal.com', 'com.zip', 'danger'],
    ['www.google.com.evil.co.uk', 'google.com', 'evil.co.uk', 'caution'],
    // Joined by hyphens.
    ['paypal.com-secure.evil.com', 'paypal.com', 'evil.com', 'caution'],
    ['accounts-google-com.evil.com', 'google.com', 'evil.com', 'danger'],
    ['signin-aws-amazon-com.evil.net', 'aws.amazon.com', 'evil.net', 'danger'],
    ['barclays-co-uk.login.evil.com', 'barclays.co.uk', 'evil.com', 'danger'],
    // Other characters browsers accept in a name join tokens too.
    ['paypal_com.evil.com', 'paypal.com', 'evil.com', 'danger'],
    ['login.paypal,com.evil.com', 'paypal.com', 'evil.com', 'danger'],
    ['paypal~com~secure.evil.com', 'paypal.com', 'evil.com', 'danger'],
    ['(paypal)(com).evil.com', 'paypal.com', 'evil.com', 'danger'],
    ['apple$com+id.evil.com', 'apple.com', 'evil.com', 'danger'],
    ['www.paypal.com-x.s3.amazonaws.com', 'paypal.com', 'com-x.s3.amazonaws.com', 'danger'],
    // A tenant under a private suffix does not own the suffix's name.
    [
      'amazonaws.com.bucket.s3.amazonaws.com',
      'amazonaws.com',
      'bucket.s3.amazonaws.com',
      'caution',
    ],
    // Digits for letters, homographs.
    ['www.paypa1.com.evil.com', 'paypal.com', 'evil.com', 'danger'],
    ['g00gle-com.evil.org', 'google.com', 'evil.org', 'danger'],
    ['rnicrosoft.com.evil.org', 'microsoft.com', 'evil.org', 'danger'],
    ['app1e.com.blogspot.com', 'apple.com', 'com.blogspot.com', 'danger'],
    ['www.pаypal.com.evil.com', 'paypal.com', 'evil.com', 'danger'],
    ['ıinkedin.com.evil.com', 'linkedin.com', 'evil.com', 'danger'],
    ['xn--ggle-vifa.com.evil.com', 'google.com', 'evil.com', 'danger'],
  ])('%s imitates %s on %s', (host, name, site, severity) => {
    const a = analyzeUrl(`https://${host}/login`);
    expect(a.site).toBe(site);
    expect(a.verdict).toBe(a.warnings.some((w) => w.severity === 'danger') ? 'danger' : severity);
    const w = mentions(`https://${host}/login`);
    expect(w).toHaveLength(1);
    expect(w[0]?.code).toBe('lookalike_subdomain');
    expect(w[0]?.severity).toBe(severity);
    expect(w[0]?.message).toContain(` ${name}, `);
    expect(w[0]?.message).toMatch(new RegExp(`the site is ${site.replaceAll('.', '\\.')}\\.$`));
  });
  it('says what was written when it is not the name itself', () => {
    expect(mentions('https://accounts-google-com.evil.com/')[0]?.message).toBe(
      'The address writes google-com to look like google.com, but the site is evil.com.',
    );
    expect(mentions('https://paypal.com.zip/')[0]?.message).toBe(
      'The address mentions paypal.com, but the site is com.zip.',
    );
  });
  it.each([
    ['paypal-com.net', 'paypal.com'],
    ['accounts-google-com.net', 'google.com'],
    ['aws-amazon.com', 'aws.amazon.com'],
    ['gov.uk.com', 'gov.uk'],
    ['paypal_com.net', 'paypal.com'],
    ['login.paypal.com.de', 'paypal.com'],
  ])('%s: a registered name that spells %s is a look-alike domain', (host, name) => {
    const a = analyzeUrl(`https://${host}/`);
    expect(a.verdict).toBe('danger');
    const w = mentions(`https://${host}/`);
    expect(w).toHaveLength(1);
    expect(w[0]?.code).toBe('lookalike_domain');
    expect(w[0]?.message).toBe(`${a.site} looks like ${name} but is a different site.`);
  });
  it('names each imitated site once, the longest where two overlap, at most three', () => {
    expect(mentions('https://aws.amazon.com.evil.com/').map((w) => w.message)).toEqual([
      'The address mentions aws.amazon.com, but the site is evil.com.',
    ]);
    expect(mentions('https://paypal.com.google.com.evil.com/').map((w) => w.message)).toEqual([
      'The address mentions paypal.com, but the site is evil.com.',
      'The address mentions google.com, but the site is evil.com.',
    ]);
    const many = `https://${Array(8).fill('paypal.com').join('-')}.evil.com/`;
    expect(mentions(many)).toHaveLength(3);
  });
  it('protects the names a host adds with wellKnown', () => {
    const a = analyzeUrl('https://intranet-acme-corp.example.com/', { wellKnown: ['acme.corp'] });
    expect(a.warnings.map((w) => w.message)).toEqual([
      'The address writes acme-corp to look like acme.corp, but the site is example.com.',
    ]);
    expect(analyzeUrl('https://sso.acme.corp/', { wellKnown: ['acme.corp'] }).verdict).toBe('ok');
  });
});

describe('the real sites and ordinary words stay ok', () => {
  it.each(
    WELL_KNOWN_DOMAINS.flatMap((d) => [
      `https://${d}/`,
      `https://www.${d}/`,
      `https://a.b-c.${d}/x`,
    ]),
  )('%s', (input) => {
    const a = analyzeUrl(input);
    expect(a.warnings).toEqual([]);
    expect(a.verdict).toBe('ok');
  });
  it.each([
    'login.microsoftonline.com',
    'appleid.apple.com',
    'www.google.com.au',
    'amazon.com.br',
    'www.amazon.co.uk',
    'paypal.com.paypal.com',
    'amazon.com.aws.amazon.com',
    'outlook.office365.com',
    'bucket.s3.amazonaws.com',
    'user.github.io',
    'someone.blogspot.com',
    'travel-visa.com',
    'start-ups.com',
    'music-box.com',
    'go-live.com',
    'on-target.com',
    'the-chase.co.uk',
    'apple-pie-recipes.com',
    'secure-paypal.com',
    'mypaypal.com.evil.com',
    'paypalcommunity.com',
    'www.paypal-community.com',
    'google-analytics.com',
    'com.example.org',
    'x.example.com',
    'apple.example.com',
    'box.office.example.org',
  ])('%s', (host) => {
    expect(mentions(`https://${host}/`)).toEqual([]);
    expect(analyzeUrl(`https://${host}/`).verdict).toBe('ok');
  });
});

const ASCII_NAMES = WELL_KNOWN_DOMAINS.filter((d) => /^[a-z0-9.]+$/.test(d));
const WORDS = ['login', 'secure', 'account', 'verify', 'mail', 'portal', 'my', 'id', 'web'];
const SITES = [
  'evil.com',
  'attacker.example',
  'bucket.s3.amazonaws.com',
  'someone.github.io',
  'x.blogspot.com',
  'evil.co.uk',
];
// Look-alike digits the skeleton reads as letters.
const DIGITS: Readonly<Record<string, string>> = { o: '0', l: '1' };

describe('property: hostile hosts built around a well-known name are flagged', () => {
  const hostile = fc
    .record({
      name: fc.constantFrom(...ASCII_NAMES),
      before: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
      after: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
      joins: fc.array(fc.constantFrom('.', '-', '.', '-', '_', '~'), {
        minLength: 8,
        maxLength: 8,
      }),
      digits: fc.boolean(),
      site: fc.constantFrom(...SITES),
    })
    .map((r) => {
      let name = r.name
        .split('.')
        .map((t, i) => (i === 0 ? t : `${r.joins[i] ?? '.'}${t}`))
        .join('');
      if (r.digits) name = name.replace(/[ol]/, (c) => DIGITS[c] ?? c);
      const parts = [...r.before, name, ...r.after];
      const host = parts
        .map((p, i) => (i === 0 ? p : `${r.joins[(i + 3) % 8] ?? '.'}${p}`))
        .join('');
      return { ...r, host: `${host}.${r.site}` };
    });
  it('names the imitated site and the real one', () => {
    fc.assert(
      fc.property(hostile, ({ name, site, host }) => {
        const a = analyzeUrl(`https://${host}/`);
        expect(a.verdict).not.toBe('ok');
        const w = mentions(`https://${host}/`);
        expect(w.some((x) => x.message.includes(` ${name}, `))).toBe(true);
        expect(w.every((x) => x.message.endsWith(`the site is ${a.site}.`))).toBe(true);
        expect(a.site?.endsWith(site)).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
  it('hosts of ordinary words are never flagged', () => {
    const ordinary = fc
      .record({
        words: fc.array(fc.constantFrom(...WORDS, 'com', 'net', 'google', 'paypal', 'apple'), {
          minLength: 1,
          maxLength: 6,
        }),
        joins: fc.array(fc.constantFrom('.', '-'), { minLength: 6, maxLength: 6 }),
        site: fc.constantFrom(...SITES),
      })
      // A brand followed straight by "com" is a mention; everything else is ordinary.
      .filter((r) => !/(google|paypal|apple),com/.test(r.words.join(',')))
      .map(
        (r) =>
          `${r.words.map((w, i) => (i === 0 ? w : `${r.joins[i] ?? '.'}${w}`)).join('')}.${r.site}`,
      );
    fc.assert(
      fc.property(ordinary, (host) => {
        expect(mentions(`https://${host}/`)).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });
});
