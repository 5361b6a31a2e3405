/**
 * The elements in a real Chromium: every field type and enum shape, keyboard-only completion,
 * validation, decline/cancel, XSS in every server string, and URL consent for hostile URLs with
 * zero network requests before the click. Screenshots are kept in test-results/.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeUrl } from '../../src/url/index.ts';
import { CONSENT_ARM_MS } from '../../src/web/limits.ts';
import { launchBrowser } from '../support/browser.ts';
import { startTestPage } from '../support/web-page.ts';

let browser: Browser;
let site: Awaited<ReturnType<typeof startTestPage>>;
beforeAll(async () => {
  mkdirSync('test-results', { recursive: true });
  site = await startTestPage();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function pageWith(
  kind: 'elicit-form' | 'elicit-url-consent',
  request: unknown,
): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => customElements.get('elicit-form') !== undefined);
  await page.evaluate(
    ({ kind, request }) => {
      const w = window as unknown as { responses: unknown[]; opened: unknown[] };
      w.responses = [];
      w.opened = [];
      window.open = ((...args: unknown[]) => {
        w.opened.push(args);
        return null;
      }) as typeof window.open;
      const element = document.createElement(kind) as HTMLElement & { request: unknown };
      element.addEventListener('elicit-response', (e) =>
        w.responses.push((e as CustomEvent).detail),
      );
      document.getElementById('root')?.append(element);
      element.request = request;
      element.focus();
    },
    { kind, request },
  );
  return page;
}

const responses = (page: Page) =>
  page.evaluate(() => (window as unknown as { responses: unknown[] }).responses);

const everything = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, description: 'As on your passport' },
    email: { type: 'string', title: 'Email', format: 'email' },
    born: { type: 'string', title: 'Born', format: 'date' },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 30 },
    score: { type: 'number', title: 'Score' },
    ok: { type: 'boolean', title: 'Subscribe', default: true },
    plain: { type: 'string', title: 'Plain', enum: ['a', 'b'] },
    titled: {
      type: 'string',
      title: 'Seat',
      oneOf: [
        { const: 'w', title: 'Window' },
        { const: 'x', title: 'Aisle' },
      ],
    },
    legacy: {
      type: 'string',
      title: 'Size',
      enum: ['s', 'm', 'l', 'xl', 'xxl', 'xxxl'],
      enumNames: ['S', 'M', 'L', 'XL', 'XXL', 'XXXL'],
    },
    multi: {
      type: 'array',
      title: 'Extras',
      items: { type: 'string', enum: ['wifi', 'meal'] },
      maxItems: 2,
    },
    titledMulti: {
      type: 'array',
      title: 'Colours',
      items: {
        anyOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
      },
    },
  },
  required: ['name', 'email', 'titled'],
};

describe('<elicit-form>', () => {
  it('renders every field type and enum shape, and submits the right types (keyboard only)', async () => {
    // The date field is left out here: Chromium's date input moves between its own segments with Tab.
    const { born: _born, ...properties } = everything.properties;
    const page = await pageWith('elicit-form', {
      server: 'Travel Co',
      message: 'Who is travelling?',
      requestedSchema: { ...everything, properties },
    });
    await page.keyboard.type('Ada'); // name (focused first)
    await page.keyboard.press('Tab');
    await page.keyboard.type('ada@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab'); // age keeps its default
    await page.keyboard.type('7.5');
    await page.keyboard.press('Tab'); // subscribe: keep checked
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown'); // plain (optional): from None to a
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown'); // seat: radios, move to Aisle (selects it)
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown'); // size: a <select> (6 options), choose S
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space'); // extras: wifi
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space'); // colours: Green
    await page.screenshot({ path: 'test-results/elicit-form.png', fullPage: true });
    await page.keyboard.press('Enter'); // review
    await page.waitForFunction(
      () => document.querySelector('elicit-form')?.shadowRoot?.querySelector('dl') !== null,
    );
    await page.keyboard.press('Enter'); // submit (focused)
    const [detail] = (await responses(page)) as {
      action: string;
      content: Record<string, unknown>;
    }[];
    expect(detail?.action).toBe('accept');
    expect(detail?.content).toMatchObject({
      name: 'Ada',
      email: 'ada@example.com',
      age: 30,
      score: 7.5,
      ok: true,
      plain: 'a',
      titled: 'x',
      multi: ['wifi'],
      titledMulti: ['g'],
    });
    expect(detail?.content.legacy).toBe('s');
    await page.close();
  }, 60_000);

  it('uses native date and datetime-local inputs and sends RFC 3339 values', async () => {
    const page = await pageWith('elicit-form', {
      server: 'S',
      message: 'When?',
      requestedSchema: {
        type: 'object',
        properties: {
          day: { type: 'string', format: 'date' },
          at: { type: 'string', format: 'date-time' },
          site: { type: 'string', format: 'uri' },
        },
      },
    });
    const types = await page.evaluate(() =>
      [...(document.querySelector('elicit-form')?.shadowRoot?.querySelectorAll('input') ?? [])].map(
        (i) => i.type,
      ),
    );
    expect(types).toEqual(['date', 'datetime-local', 'url']);
    await page.fill('elicit-form >> input[name=day]', '1990-02-01');
    await page.fill('elicit-form >> input[name=at]', '2026-12-24T09:30');
    await page.click('elicit-form >> [part=submit]');
    await page.click('elicit-form >> [part=submit]');
    const [detail] = (await responses(page)) as { content: Record<string, string> }[];
    expect(detail?.content.day).toBe('1990-02-01');
    expect(detail?.content.at).toMatch(/^2026-12-24T\d{2}:\d{2}:00Z$/);
    await page.close();
  });

  it('shows validation errors, blocks sending, and ties them to the inputs', async () => {
    const page = await pageWith('elicit-form', {
      server: 'S',
      message: 'M',
      requestedSchema: everything,
    });
    await page.keyboard.type('A');
    await page.keyboard.press('Tab');
    await page.keyboard.type('not-an-email');
    await page.keyboard.press('Enter');
    const errors = await page.evaluate(() =>
      [
        ...(document
          .querySelector('elicit-form')
          ?.shadowRoot?.querySelectorAll('.error:not([hidden])') ?? []),
      ].map((e) => e.textContent),
    );
    expect(errors).toContain('Enter at least 2 characters.');
    expect(errors).toContain('Enter an email address such as name@example.com.');
    const invalid = await page.evaluate(() =>
      document
        .querySelector('elicit-form')
        ?.shadowRoot?.querySelector('input[name=name]')
        ?.getAttribute('aria-invalid'),
    );
    expect(invalid).toBe('true');
    const described = await page.evaluate(() => {
      const root = document.querySelector('elicit-form')?.shadowRoot;
      const input = root?.querySelector('input[name=email]');
      return (input?.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => root?.getElementById(id)?.textContent);
    });
    expect(described).toEqual(['Enter an email address such as name@example.com.']);
    expect(await responses(page)).toEqual([]);
    await page.close();
  });

  it('Decline, Cancel and Escape answer with no content', async () => {
    for (const [key, action] of [
      ['decline', 'decline'],
      ['cancel', 'cancel'],
      ['Escape', 'cancel'],
    ] as const) {
      const page = await pageWith('elicit-form', {
        server: 'S',
        message: 'M',
        requestedSchema: everything,
      });
      if (key === 'Escape') await page.keyboard.press('Escape');
      else await page.click(`elicit-form >> [part="${key}"]`);
      expect(await responses(page)).toEqual([{ action }]);
      await page.close();
    }
  });

  it('fields named constructor and __proto__ start empty and can be answered', async () => {
    const page = await browser.newPage();
    await page.goto(site.url);
    await page.waitForFunction(() => customElements.get('elicit-form') !== undefined);
    // The schema goes in as JSON text: an object literal or Playwright's encoding would not keep
    // an own `__proto__` property.
    await page.evaluate((json) => {
      const w = window as unknown as { answers: string[] };
      w.answers = [];
      const element = document.createElement('elicit-form') as HTMLElement & { request: unknown };
      element.addEventListener('elicit-response', (e) =>
        w.answers.push(JSON.stringify((e as CustomEvent).detail)),
      );
      document.getElementById('root')?.append(element);
      element.request = { server: 'S', message: 'M', requestedSchema: JSON.parse(json) };
    }, '{"type":"object","properties":{"constructor":{"type":"string"},"__proto__":{"type":"array","items":{"type":"string","enum":["x","y"]}}},"required":["__proto__"]}');
    expect(await page.inputValue('elicit-form [data-field="constructor"] input')).toBe('');
    await page.check('elicit-form [data-field="__proto__"] input[value="y"]');
    await page.click('elicit-form [part=submit]');
    await page.waitForSelector('elicit-form dl');
    await page.click('elicit-form [part=submit]');
    expect(await page.evaluate(() => (window as unknown as { answers: string[] }).answers)).toEqual(
      ['{"action":"accept","content":{"__proto__":["y"]}}'],
    );
    await page.close();
  });

  it('renders every server string as inert text: no script runs, no link or image is created', async () => {
    const x =
      '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><a href="javascript:window.__xss=3">click</a> https://evil.example';
    const page = await pageWith('elicit-form', {
      server: x,
      message: x,
      requestedSchema: {
        type: 'object',
        properties: {
          a: { type: 'string', title: x, description: x, default: x },
          b: { type: 'string', title: x, oneOf: [{ const: 'v', title: x }] },
          c: {
            type: 'string',
            title: x,
            enum: ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'],
            enumNames: [x, x, x, x, x, x],
          },
        },
      },
    });
    await page.waitForTimeout(200);
    const result = await page.evaluate(() => {
      const root = document.querySelector('elicit-form')?.shadowRoot;
      return {
        xss: (window as unknown as { __xss?: number }).__xss,
        links: root?.querySelectorAll('a,img,script,iframe').length,
        text: root?.textContent?.includes('<img src=x onerror'),
      };
    });
    expect(result).toEqual({ xss: undefined, links: 0, text: true });
    await page.close();
  });

  /** The caution `<elicit-form>` shows above a form with these properties. */
  const cautionFor = async (properties: Record<string, unknown>) => {
    const page = await pageWith('elicit-form', {
      server: 'Bank',
      message: 'Sign in',
      requestedSchema: { type: 'object', properties },
    });
    const caution = await page.evaluate(
      () =>
        document.querySelector('elicit-form')?.shadowRoot?.querySelector('[part=caution]')
          ?.textContent,
    );
    await page.close();
    return caution;
  };

  it('cautions the person when the form asks for a password', async () => {
    expect(await cautionFor({ password: { type: 'string' } })).toBe(
      '"password" looks like it asks for a password. Servers must not ask for that in a form; unless you expected it, decline.',
    );
  });

  it('cautions the person when look-alike letters spell a password', async () => {
    // Cyrillic Р and а, a soft hyphen, and a digit zero: it reads "Password".
    expect(await cautionFor({ code: { type: 'string', title: 'Ра\u00adssw0rd' } })).toContain(
      'looks like it asks for a password',
    );
  });

  it('shows the server name, message, titles, hints and options inert (bidi, controls, tags)', async () => {
    const page = await pageWith('elicit-form', {
      server: 'Pay\u202eroll',
      message: 'Confirm\u0085 the\u{e0041} transfer',
      requestedSchema: {
        type: 'object',
        properties: {
          a: { type: 'string', title: 'IB\u200bAN', description: 'to\u2066 account' },
          b: { type: 'string', title: 'Speed', oneOf: [{ const: 'v', title: 'fa\u202dst' }] },
          c: {
            type: 'string',
            title: 'Bank',
            enum: ['1', '2', '3', '4', '5', '6'],
            enumNames: ['A\u2067', 'B', 'C', 'D', 'E', 'F'],
          },
        },
      },
    });
    const text = await page.evaluate(
      () => document.querySelector('elicit-form')?.shadowRoot?.textContent ?? '',
    );
    expect(text).toContain('Pay⟨U+202E⟩roll asks');
    expect(text).toContain('Confirm⟨U+0085⟩ the⟨U+E0041⟩ transfer');
    expect(text).toContain('IB⟨U+200B⟩AN');
    expect(text).toContain('to⟨U+2066⟩ account');
    expect(text).toContain('fa⟨U+202D⟩st');
    expect(text).toContain('A⟨U+2067⟩');
    expect(/[\u0085\u200b\u202d\u202e\u2066\u2067\u{e0041}]/u.test(text)).toBe(false);
    await page.close();
  });
});

describe('<elicit-url-consent>', () => {
  const hostile = [
    'https://аpple.com/login',
    'https://аррӏе.com',
    'https://gօօgle.com',
    'https://faß.de',
    'https://googlé.com',
    'https://google.com@evil.example/',
    'https://login.microsoftonline.com.evil.co.uk/',
    'https://attacker.github.io/',
    'http://2130706433/',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'https://münchen.de',
  ];
  it.each(hostile)('%s: the right warnings, the site marked, open only on click', async (href) => {
    const analysis = analyzeUrl(href);
    const before = site.hits.length;
    const page = await pageWith('elicit-url-consent', {
      server: 'Calendar server',
      message: 'Sign in to continue',
      analysis,
    });
    const requests: string[] = [];
    page.on('request', (r) => void requests.push(r.url()));
    await page.waitForTimeout(150);
    const shown = await page.evaluate(() => {
      const root = document.querySelector('elicit-url-consent')?.shadowRoot;
      return {
        warnings: [...(root?.querySelectorAll('.warn > p') ?? [])].map((w) => w.textContent),
        site: root?.querySelector('mark')?.textContent,
        open: root?.querySelector('[part=open]') !== null,
        links: root?.querySelectorAll('a,img,link,iframe').length,
      };
    });
    expect(shown.warnings).toEqual(analysis.warnings.map((w) => w.message));
    expect(shown.links).toBe(0);
    if (analysis.verdict === 'refused') {
      expect(shown.open).toBe(false);
    } else {
      expect(shown.site).toBe(analysis.site);
      expect(shown.open).toBe(true);
      // Nothing was fetched for the URL before the click.
      expect(requests).toEqual([]);
      expect(site.hits.length).toBe(before + 2); // the page and its script only
      if (href === 'https://аpple.com/login')
        await page.screenshot({ path: 'test-results/elicit-url-consent.png', fullPage: true });
      await page.waitForTimeout(CONSENT_ARM_MS);
      await page.click('elicit-url-consent >> [part=open]');
      const opened = await page.evaluate(() => (window as unknown as { opened: unknown[] }).opened);
      expect(opened).toEqual([[analysis.href, '_blank', 'noopener,noreferrer']]);
      expect(await responses(page)).toEqual([{ action: 'opened' }]);
    }
    await page.close();
  });
  it('shows the server name, message, warnings and address inert (bidi, controls, tags)', async () => {
    const analysis = analyzeUrl('https://example.com/');
    const page = await pageWith('elicit-url-consent', {
      server: 'Cal\u202eendar',
      message: 'Sign\u0085 in\u{e0041}',
      analysis: {
        ...analysis,
        site: 'exa\u2066mple.com',
        segments: [
          { text: 'https://', part: 'scheme' },
          { text: 'exa\u2066mple.com', part: 'domain' },
        ],
        warnings: [{ code: 'idn', severity: 'info', message: 'w\u200b' }],
      },
    });
    const text = await page.evaluate(
      () => document.querySelector('elicit-url-consent')?.shadowRoot?.textContent ?? '',
    );
    expect(text).toContain('Cal⟨U+202E⟩endar wants you to open a page');
    expect(text).toContain('Sign⟨U+0085⟩ in⟨U+E0041⟩');
    expect(text).toContain('exa⟨U+2066⟩mple.com');
    expect(text).toContain('w⟨U+200B⟩');
    expect(/[\u0085\u200b\u202e\u2066\u{e0041}]/u.test(text)).toBe(false);
    await page.close();
  });
});
