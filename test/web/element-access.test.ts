/**
 * The elements as a person and an accessibility auditor meet them, in Chromium: styled under a
 * strict CSP (and the demo's), axe-core with zero violations light and dark at 1280 and 375 px,
 * contrast of what axe does not measure (focus ring, borders), no layout shift under a click,
 * a consent no stray key can accept, server text that cannot push the warnings away, one live
 * region, and the element's life (equal requests, Escape with typed input, the outcome).
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeUrl } from '../../src/url/index.ts';
import { HOST_CSP } from '../../src/web/host/page.ts';
import { CONSENT_ARM_MS, MESSAGE_LIMITS } from '../../src/web/limits.ts';
import { launchBrowser } from '../support/browser.ts';
import { STRICT_CSP, startTestPage } from '../support/web-page.ts';

type Site = Awaited<ReturnType<typeof startTestPage>>;
let browser: Browser;
const sites: Record<string, Site> = {};
beforeAll(async () => {
  browser = await launchBrowser();
  sites.strict = await startTestPage();
  sites.demo = await startTestPage({ csp: HOST_CSP });
  sites.inline = await startTestPage({
    csp: "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'",
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  for (const s of Object.values(sites)) await s.close();
});

const AXE = readFileSync('node_modules/axe-core/axe.min.js', 'utf8');

interface Opened {
  page: Page;
  violations: string[];
}

/** A page with one element; CSP reports are collected. */
async function open(
  kind: 'elicit-form' | 'elicit-url-consent',
  request: unknown,
  options: {
    site?: Site;
    scheme?: 'light' | 'dark';
    width?: number;
    init?: () => void;
  } = {},
): Promise<Opened> {
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1280, height: 800 },
    colorScheme: options.scheme ?? 'light',
  });
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|violates/i.test(m.text())) violations.push(m.text());
  });
  if (options.init !== undefined) await page.addInitScript(options.init);
  await page.goto((options.site ?? (sites.strict as Site)).url);
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
  return { page, violations };
}

const responses = (page: Page) =>
  page.evaluate(() => (window as unknown as { responses: unknown[] }).responses);
const opened = (page: Page) =>
  page.evaluate(() => (window as unknown as { opened: unknown[] }).opened);

/** Evaluates `fn` with the element's shadow root. */
function inRoot<T>(page: Page, fn: (root: ShadowRoot) => T): Promise<T> {
  return page.evaluate((source) => {
    const root = (document.querySelector('elicit-form, elicit-url-consent') as HTMLElement)
      .shadowRoot as ShadowRoot;
    return new Function('root', `return (${source})(root)`)(root);
  }, fn.toString()) as Promise<T>;
}

const trip = {
  server: 'Travel Co',
  message: 'Who is travelling?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2, description: 'As on your passport' },
      email: { type: 'string', title: 'Email', format: 'email' },
      seat: {
        type: 'string',
        title: 'Seat',
        oneOf: [
          { const: 'w', title: 'Window' },
          { const: 'a', title: 'Aisle' },
        ],
      },
      extras: {
        type: 'array',
        title: 'Extras',
        items: { type: 'string', enum: ['wifi', 'meal', 'bag'] },
        minItems: 1,
      },
      ok: { type: 'boolean', title: 'Subscribe' },
    },
    required: ['name', 'email', 'seat', 'extras'],
  },
};

const consent = (href: string, message = 'Sign in to continue') => ({
  server: 'Calendar server',
  message,
  analysis: analyzeUrl(href),
});

// --- colour arithmetic (WCAG 2 relative luminance) ---
function rgb(css: string): [number, number, number] {
  const m = /rgba?\(([\d.]+),?\s*([\d.]+),?\s*([\d.]+)/.exec(css);
  if (m === null) throw new Error(`not a colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}
function luminance(css: string): number {
  const [r, g, b] = rgb(css).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

describe('styles survive a strict CSP', () => {
  it.each([
    ['strict', STRICT_CSP],
    ['demo', HOST_CSP],
  ])('under the %s policy the elements are styled, with no CSP report', async (name) => {
    const { page, violations } = await open(
      'elicit-url-consent',
      consent('https://аpple.com/login'),
      { site: sites[name] as Site },
    );
    const style = await inRoot(page, (root) => {
      const css = (sel: string) => getComputedStyle(root.querySelector(sel) as Element);
      return {
        adopted: root.adoptedStyleSheets.length,
        inline: root.querySelectorAll('style').length,
        box: css('.box').borderTopWidth,
        warning: css('.warn.danger').borderLeftColor,
        open: css('[part=open]').color,
        url: css('.url').fontFamily,
      };
    });
    expect(style).toMatchObject({ adopted: 1, inline: 0, box: '1px' });
    expect(style.warning).toBe('rgb(164, 0, 15)');
    expect(style.open).toBe('rgb(164, 0, 15)');
    expect(style.url).toMatch(/monospace/);
    expect(violations).toEqual([]);
    await page.close();
  });

  it('without constructable stylesheets, falls back to a <style> (needs style-src unsafe-inline)', async () => {
    const { page } = await open('elicit-form', trip, {
      site: sites.inline as Site,
      init: () => {
        delete (ShadowRoot.prototype as { adoptedStyleSheets?: unknown }).adoptedStyleSheets;
      },
    });
    const style = await inRoot(page, (root) => ({
      inline: root.querySelectorAll('style').length,
      box: getComputedStyle(root.querySelector('.box') as Element).borderTopWidth,
    }));
    expect(style).toEqual({ inline: 1, box: '1px' });
    await page.close();
  });
});

describe('axe-core finds nothing, light and dark, wide and narrow', () => {
  const screens: [
    string,
    'elicit-form' | 'elicit-url-consent',
    unknown,
    ((p: Page) => Promise<void>)?,
  ][] = [
    ['form', 'elicit-form', trip],
    [
      'form with errors',
      'elicit-form',
      trip,
      async (p) => {
        await p.keyboard.type('A');
        await p.keyboard.press('Enter');
        await p.waitForSelector('elicit-form >> [aria-invalid=true]');
      },
    ],
    [
      'form review',
      'elicit-form',
      { ...trip, initial: { name: 'Ada', email: 'a@b.co', seat: 'w', extras: ['meal'] } },
      async (p) => {
        await p.keyboard.press('Enter');
        await p.waitForSelector('elicit-form >> dl');
      },
    ],
    ['consent ok', 'elicit-url-consent', consent('https://calendar.example.com/auth')],
    [
      'consent caution',
      'elicit-url-consent',
      consent('https://login.microsoftonline.com.evil.co.uk/'),
    ],
    ['consent danger', 'elicit-url-consent', consent('https://аpple.com/login')],
    ['consent refused', 'elicit-url-consent', consent('javascript:alert(1)')],
    [
      'consent with a long message',
      'elicit-url-consent',
      consent(
        'https://calendar.example.com/auth',
        `${'A long line of text. '.repeat(60)}\n`.repeat(8),
      ),
    ],
  ];
  for (const scheme of ['light', 'dark'] as const)
    for (const width of [1280, 375])
      it(`${scheme}, ${width} px`, async () => {
        const found: string[] = [];
        for (const [name, kind, request, then] of screens) {
          const { page } = await open(kind, request, { scheme, width });
          await then?.(page);
          await page.evaluate(AXE);
          const result = (await page.evaluate(() =>
            (
              window as unknown as {
                axe: { run(c: unknown, o: unknown): Promise<unknown> };
              }
            ).axe.run(document, {
              runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa', 'best-practice'],
            }),
          )) as { violations: { id: string; nodes: { target: unknown }[] }[] };
          for (const v of result.violations)
            if (
              v.id !== 'region' &&
              v.id !== 'page-has-heading-one' &&
              v.id !== 'landmark-one-main'
            )
              found.push(`${name}: ${v.id} ${JSON.stringify(v.nodes.map((n) => n.target))}`);
          // Nothing is wider than the screen.
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth),
          ).toBeLessThanOrEqual(width);
          await page.close();
        }
        expect(found).toEqual([]);
      }, 120_000);

  it.each(['light', 'dark'] as const)(
    '%s: the focus ring and input borders reach 3:1, the primary button 4.5:1, color-scheme set',
    async (scheme) => {
      const { page } = await open('elicit-form', trip, { scheme });
      await page.keyboard.press('Tab'); // keyboard focus: :focus-visible
      await page.keyboard.press('Shift+Tab');
      const c = await inRoot(page, (root) => {
        const css = (sel: string) => getComputedStyle(root.querySelector(sel) as Element);
        const focused = getComputedStyle(root.activeElement as Element);
        return {
          bg: css('.box').backgroundColor,
          ring: focused.outlineColor,
          ringWidth: focused.outlineWidth,
          border: css('input[name=email]').borderTopColor,
          primary: css('button.primary').backgroundColor,
          onPrimary: css('button.primary').color,
          scheme: getComputedStyle(root.host).colorScheme,
        };
      });
      expect(c.ringWidth).toBe('2px');
      expect(contrast(c.ring, c.bg)).toBeGreaterThanOrEqual(3);
      expect(contrast(c.border, c.bg)).toBeGreaterThanOrEqual(3);
      expect(contrast(c.primary, c.onPrimary)).toBeGreaterThanOrEqual(4.5);
      expect(c.scheme).toBe('light dark');
      await page.close();
    },
  );
});

describe('<elicit-form> as a person uses it', () => {
  it('a click on Review after correcting a field lands: nothing moves between pointer down and up', async () => {
    const { page } = await open('elicit-form', trip);
    await page.keyboard.type('A');
    await page.keyboard.press('Enter'); // Review: errors under name, email, seat, extras
    await page.waitForSelector('elicit-form >> [aria-invalid=true]');
    await page.fill('elicit-form >> input[name=email]', 'ada@example.com');
    await page.click('elicit-form >> label:has-text("Aisle")');
    await page.click('elicit-form >> label:has-text("meal")');
    // The last correction is typed, and the pointer goes straight to Review.
    await page.click('elicit-form >> input[name=name]');
    await page.keyboard.type('da');
    const review = page.locator('elicit-form >> [part=submit]');
    const before = await review.boundingBox();
    if (before === null) throw new Error('no Review button');
    await page.mouse.move(before.x + before.width / 2, before.y + before.height / 2);
    await page.mouse.down();
    const during = await review.boundingBox();
    await page.mouse.up();
    expect(during).toEqual(before);
    await page.waitForSelector('elicit-form >> dl');
    await page.close();
  });

  it('errors are tied to their fields and announced once, in one live region', async () => {
    const { page } = await open('elicit-form', trip);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(120); // the live region is filled after a beat
    const a = await inRoot(page, (root) => {
      const text = (id: string) => root.getElementById(id)?.textContent ?? '';
      const email = root.querySelector('input[name=email]') as HTMLElement;
      const seat = root.querySelector('[data-field=seat] fieldset') as HTMLElement;
      const extras = root.querySelector('[data-field=extras] fieldset') as HTMLElement;
      const form = root.querySelector('form') as HTMLElement;
      return {
        live: [...root.querySelectorAll('[aria-live],[role=status],[role=alert]')].map(
          (n) => n.textContent,
        ),
        emailDescribed: (email.getAttribute('aria-describedby') ?? '').split(' ').map(text),
        seat: [seat.getAttribute('role'), seat.getAttribute('aria-invalid')],
        extras: [
          extras.getAttribute('aria-invalid'),
          [...extras.querySelectorAll('input')].map((i) => i.getAttribute('aria-invalid')),
        ],
        seatError: (seat.getAttribute('aria-describedby') ?? '').split(' ').map(text),
        name: text(form.getAttribute('aria-labelledby') ?? ''),
        description: text(form.getAttribute('aria-describedby') ?? ''),
        focused: (root.activeElement as HTMLInputElement | null)?.name,
      };
    });
    expect(a.live).toEqual(['4 answers need attention.']);
    expect(a.emailDescribed).toEqual(['This field is required.']);
    expect(a.seat).toEqual(['radiogroup', 'true']);
    expect(a.extras).toEqual(['true', ['true', 'true', 'true']]);
    expect(a.seatError).toEqual(['This field is required.']);
    expect(a.name).toBe('Travel Co asks');
    expect(a.description).toBe('Who is travelling?');
    expect(a.focused).toBe('name');
    await page.close();
  });

  it('Escape with typed input asks first; Escape again keeps editing, Discard cancels', async () => {
    const { page } = await open('elicit-form', trip);
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Escape');
    expect(await responses(page)).toEqual([]);
    const asked = await inRoot(page, (root) => ({
      question: root.querySelector('[part=confirm] p')?.textContent,
      focused: root.activeElement?.textContent,
    }));
    expect(asked).toEqual({
      question: 'Discard what you entered and cancel?',
      focused: 'Keep editing',
    });
    await page.keyboard.press('Escape');
    const back = await inRoot(page, (root) => ({
      confirm: root.querySelector('[part=confirm]') !== null,
      value: (root.activeElement as HTMLInputElement | null)?.value,
    }));
    expect(back).toEqual({ confirm: false, value: 'Ada Lovelace' });
    await page.keyboard.press('Escape');
    await page.click('elicit-form >> [part=discard]');
    expect(await responses(page)).toEqual([{ action: 'cancel' }]);
    await page.close();
  });

  it('an equal request keeps what was typed; a different one starts over', async () => {
    const { page } = await open('elicit-form', trip);
    await page.keyboard.type('Ada');
    const value = (request: unknown) =>
      page.evaluate((request) => {
        const element = document.querySelector('elicit-form') as HTMLElement & {
          request: unknown;
        };
        element.request = request;
        const input = element.shadowRoot?.querySelector('input[name=name]') as HTMLInputElement;
        return input.value;
      }, request);
    expect(await value(JSON.parse(JSON.stringify(trip)))).toBe('Ada');
    expect(await value({ ...trip, message: 'Who else?' })).toBe('');
    await page.close();
  });

  it('an answered form shows the outcome and disables its controls', async () => {
    const { page } = await open('elicit-form', trip);
    await page.click('elicit-form >> [part=decline]');
    const after = await inRoot(page, (root) => ({
      outcome: root.querySelector('[part=outcome]')?.textContent,
      enabled: [...root.querySelectorAll('button,input,select')].filter(
        (c) => !(c as HTMLButtonElement).disabled,
      ).length,
    }));
    expect(after).toEqual({ outcome: 'Declined.', enabled: 0 });
    await page.keyboard.press('Escape');
    expect(await responses(page)).toEqual([{ action: 'decline' }]);
    await page.close();
  });

  it('server text: dir=auto, wraps at 375 px, an emoji sequence stays one emoji, invisible characters stay marked', async () => {
    const long = 'x'.repeat(600);
    const { page } = await open(
      'elicit-form',
      {
        server: 'Café ☕',
        message: `مرحبا! 👩🏽‍💻 ${long} a\u200bb`,
        requestedSchema: {
          type: 'object',
          properties: { n: { type: 'string', title: long, description: long } },
        },
      },
      { width: 375 },
    );
    const t = await inRoot(page, (root) => ({
      message: root.querySelector('[part=message]')?.textContent,
      dir: [...root.querySelectorAll('[part=message],[part=server],label,.hint')].map((n) =>
        n.getAttribute('dir'),
      ),
    }));
    expect(t.message).toContain('👩🏽‍💻');
    expect(t.message).toContain('a⟨U+200B⟩b');
    expect(t.dir).toEqual(['auto', 'auto', 'auto', 'auto']);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    await page.close();
  });
});

describe('<elicit-url-consent> cannot be accepted by accident', () => {
  it.each([
    ['ok', 'https://calendar.example.com/auth'],
    ['caution', 'https://login.microsoftonline.com.evil.co.uk/'],
    ['danger', 'https://аpple.com/login'],
  ])(
    '%s: focus starts on Decline, Enter right after it appears does nothing, open is never primary unless ok',
    async (verdict, href) => {
      const { page } = await open('elicit-url-consent', consent(href));
      expect(analyzeUrl(href).verdict).toBe(verdict);
      await page.keyboard.press('Enter'); // meant for the previous screen
      await page.keyboard.press('Enter');
      const state = await inRoot(page, (root) => ({
        focused: root.activeElement?.getAttribute('part'),
        primary: root.querySelector('[part=open]')?.classList.contains('primary'),
      }));
      expect(state).toEqual({ focused: 'decline', primary: verdict === 'ok' });
      expect(await opened(page)).toEqual([]);
      expect(await responses(page)).toEqual([]);
      // A click on open right away is ignored too; after the moment it opens.
      await page.evaluate(() =>
        document
          .querySelector('elicit-url-consent')
          ?.shadowRoot?.querySelector<HTMLButtonElement>('[part=open]')
          ?.click(),
      );
      expect(await opened(page)).toEqual([]);
      await page.waitForTimeout(CONSENT_ARM_MS);
      await page.click('elicit-url-consent >> [part=open]');
      expect(await responses(page)).toEqual([{ action: 'opened' }]);
      const outcome = await inRoot(page, (root) => ({
        text: root.querySelector('[part=outcome]')?.textContent,
        disabled: [...root.querySelectorAll('button')].every((b) => b.disabled),
      }));
      expect(outcome).toEqual({ text: 'Opened in a new tab.', disabled: true });
      await page.close();
    },
  );
});

describe('<elicit-url-consent> from the keyboard only', () => {
  it('Tab goes Decline → Cancel → Open anyway; Enter there opens once the moment has passed', async () => {
    const { page } = await open('elicit-url-consent', consent('https://аpple.com/login'));
    await page.waitForTimeout(CONSENT_ARM_MS);
    const focused = () => inRoot(page, (root) => root.activeElement?.getAttribute('part') ?? null);
    const order = [await focused()];
    for (let i = 0; i < 2; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual(['decline', 'cancel', 'open']);
    await page.keyboard.press('Enter');
    expect(await responses(page)).toEqual([{ action: 'opened' }]);
    expect(await opened(page)).toEqual([
      [analyzeUrl('https://аpple.com/login').href, '_blank', 'noopener,noreferrer'],
    ]);
    await page.close();
  });

  it('Escape cancels, Enter on Decline declines', async () => {
    for (const [key, action] of [
      ['Escape', 'cancel'],
      ['Enter', 'decline'],
    ] as const) {
      const { page } = await open('elicit-url-consent', consent('https://calendar.example.com/'));
      await page.waitForTimeout(CONSENT_ARM_MS);
      await page.keyboard.press(key);
      expect(await responses(page)).toEqual([{ action }]);
      await page.close();
    }
  });
});

describe('what a server writes cannot move the warnings away from the choice', () => {
  const forged = `Please sign in.${'\n'.repeat(1999)}Address\nhttps://google.com/login\nSite: google.com\n\n\n\n${'more\n'.repeat(40)}`;
  it('address, site and warnings are the last thing above the choice; the message is bounded and framed as the server’s', async () => {
    const { page } = await open('elicit-url-consent', consent('https://аpple.com/login', forged), {
      width: 375,
    });
    const layout = await inRoot(page, (root) => {
      const box = (sel: string) => (root.querySelector(sel) as Element).getBoundingClientRect();
      const order = [...(root.querySelector('.box') as Element).children].map(
        (c) => c.getAttribute('part') ?? c.className,
      );
      const message = root.querySelector('[part=message]') as HTMLElement;
      return {
        order,
        lines: (message.textContent ?? '').split('\n').length,
        text: message.textContent ?? '',
        height: box('[part=message]').height,
        caption: root.querySelector('.said-by')?.textContent,
        inFrame: message.closest('.said') !== null,
        gap: box('[part=actions]').top - box('[part=warnings]').bottom,
        focusable: message.tabIndex,
      };
    });
    expect(layout.order).toEqual(['server', 'said', 'address', 'warnings', 'actions']);
    expect(layout.lines).toBeLessThanOrEqual(MESSAGE_LIMITS.lines + 1);
    expect(layout.text).not.toMatch(/\n\n\n/);
    expect(layout.text).toMatch(/more lines hidden\)$/);
    expect(layout.height).toBeLessThan(300);
    expect(layout.caption).toBe("In Calendar server's words:");
    expect(layout.inFrame).toBe(true);
    expect(layout.gap).toBeLessThan(40);
    expect(layout.focusable).toBe(0); // it scrolls, so the keyboard can reach it
    await page.close();
  });

  it('a look-alike is shown beside the name it imitates, the differing character marked with its code point', async () => {
    const { page } = await open('elicit-url-consent', consent('https://аpple.com/login'));
    const shown = await inRoot(page, (root) => ({
      marked: [...root.querySelectorAll('[part=lookalike] mark')].map((m) => m.textContent),
      rows: [...root.querySelectorAll('[part=lookalike] dd')].map((d) => d.textContent),
    }));
    expect(shown.marked).toEqual(['а']);
    expect(shown.rows).toEqual(['аpple.com', 'apple.com', 'а U+0430 where apple.com has a U+0061']);
    await page.close();
  });
});
