/**
 * Every screen of `elicit demo --web` as a person and an accessibility auditor meet it, in
 * Chromium: the host page and the connect pages, in light and dark, at 1280×800 and 375×740.
 * On each: axe-core with the WCAG 2.2 AA rules finds nothing, the page never scrolls sideways,
 * and every Tab stop shows a focus indicator of at least 3:1. Then the main paths are done with
 * the keyboard alone (Tab, Enter, Space, Escape), and focus never falls to <body>.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebDemo } from '../../src/cli/web-demo.ts';
import type { DemoStack } from '../../src/demo/stack.ts';
import { launchBrowser } from '../support/browser.ts';
import { axeViolations, type FocusStop, focused, overflow, tabStops } from '../support/checks.ts';
import {
  connectPageOf,
  hostPage,
  INBOX_SCREENS,
  INBOXES,
  inboxScreenName,
  SCREENS,
  type Screens,
} from '../support/screens.ts';

const SCHEMES = ['light', 'dark'] as const;
const SIZES = [
  { name: 'wide', width: 1280, height: 800 },
  { name: 'narrow', width: 375, height: 740 },
] as const;

let browser: Browser;
let demo: DemoStack;
let context: BrowserContext;
let s: Screens;
const blocked: string[] = [];
beforeAll(async () => {
  demo = await startWebDemo({ dir: mkdtempSync(join(tmpdir(), 'elicit-web-screens-')) });
  browser = await launchBrowser();
  context = await browser.newContext();
  // Every page runs under its own CSP: anything the CSP blocks is a failure of the screen.
  context.on('page', (page) =>
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text()))
        blocked.push(`${page.url()}: ${m.text()}`);
    }),
  );
  s = { demo, context };
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await demo?.close();
});

/** Per screen, scheme and size: what axe found (printed at the end, so a run shows the tally). */
const tally: string[] = [];
afterAll(() => {
  if (tally.length > 0)
    console.log(`axe (WCAG 2.2 AA), violations per screen:\n${tally.join('\n')}`);
});

const weak = (stops: FocusStop[]) =>
  stops.filter((f) => f.contrast < 3).map((f) => `${f.element}: ${f.contrast}:1 (${f.how})`);

describe('the screenshots in docs/web.md', () => {
  it('every one is on disk, small, and shown in the docs (npm run screenshots writes them)', () => {
    const doc = readFileSync('docs/web.md', 'utf8');
    const shown = [...doc.matchAll(/\]\(images\/(screen-[a-z-]+-(?:light|dark)-\d+\.png)\)/g)].map(
      (m) => m[1] as string,
    );
    const files = readdirSync('docs/images').filter((f) => f.startsWith('screen-'));
    expect(shown.length).toBeGreaterThanOrEqual(12);
    expect(shown.sort()).toEqual(files.sort());
    for (const f of files) expect(statSync(`docs/images/${f}`).size).toBeLessThan(200 * 1024);
    // Each shown screen is one the suites check (this one, and inbox-screens.test.ts).
    const names = new Set([
      ...SCREENS.map((x) => x.name),
      ...INBOXES.flatMap((i) =>
        INBOX_SCREENS.filter((x) => x.of?.includes(i) ?? true).map((x) =>
          inboxScreenName(i, x.name),
        ),
      ),
    ]);
    for (const f of shown)
      expect(names.has(f.replace(/^screen-|-(light|dark)-\d+\.png$/g, ''))).toBe(true);
  });
});

describe('the checks themselves', () => {
  it('find what is wrong: axe under a strict CSP, sideways scrolling, a faint focus ring', async () => {
    const page = await context.newPage();
    await page.route('http://bad.test/', (r) =>
      r.fulfill({
        contentType: 'text/html',
        headers: { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
        body: `<!doctype html><html><head><title>bad</title><style>p{color:#aaa}div{width:900px}input:focus{outline:none}button:focus-visible{outline:2px solid #ddd}</style></head>
<body><main><h1>Bad</h1><p>Faint text</p><img alt="" src="http://bad.test/blocked.png"><input><div>wide</div><button>Go</button></main></body></html>`,
      }),
    );
    await page.goto('http://bad.test/');
    await page.setViewportSize({ width: 375, height: 740 });
    const ids = (await axeViolations(page)).map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['color-contrast', 'label', 'html-has-lang']));
    expect((await overflow(page)).excess).toBeGreaterThan(400);
    const stops = await tabStops(page);
    expect(stops.map((f) => f.element)).toEqual(['input ""', 'button "Go"']);
    expect(weak(stops)).toHaveLength(2);
    await expect.poll(() => blocked.some((b) => b.includes('blocked.png'))).toBe(true);
    blocked.length = 0;
    await page.close();
  });
});

describe('every screen, light and dark, wide and narrow', () => {
  it.each(SCREENS.map((screen) => [screen.name, screen] as const))(
    '%s: axe finds nothing, nothing scrolls sideways, focus is visible',
    async (_name, screen) => {
      blocked.length = 0;
      const page = await screen.reach(s);
      const problems: string[] = [];
      try {
        for (const scheme of SCHEMES) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const size of SIZES) {
            await page.setViewportSize({ width: size.width, height: size.height });
            const where = `${scheme} ${size.name}`;
            const violations = await axeViolations(page);
            tally.push(
              `  ${screen.name} ${where}: ${violations.length === 0 ? 'none' : violations.map((v) => `${v.id} (${v.targets.length})`).join(', ')}`,
            );
            for (const v of violations)
              problems.push(`${where}: axe ${v.id} (${v.help}) at ${v.targets.join(' | ')}`);
            if (size.name === 'narrow') {
              const o = await overflow(page);
              if (o.excess > 0)
                problems.push(`${where}: ${o.excess}px wider than the screen (${o.widest})`);
            } else {
              const stops = await tabStops(page);
              const focusable = await page.$$eval(
                'a[href], button, input, select, textarea, elicit-form, elicit-url-consent',
                (l) => l.length,
              );
              if (stops.length === 0 && focusable > 0)
                problems.push(`${where}: no Tab stop at all`);
              for (const w of weak(stops)) problems.push(`${where}: focus indicator ${w}`);
              if (stops.length > 0)
                tally.push(
                  `  ${screen.name} ${where}: ${stops.length} Tab stops, faintest focus indicator ${Math.min(...stops.map((f) => f.contrast))}:1`,
                );
            }
          }
        }
      } finally {
        await page.close();
      }
      problems.push(...blocked.splice(0));
      expect(problems).toEqual([]);
    },
    60_000,
  );
});

/** Presses Tab (or Shift+Tab) until `want` holds for the focused element; false when it never does. */
async function tabTo(page: Page, want: (f: string) => boolean, back = false): Promise<boolean> {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (want(await focused(page))) return true;
  }
  return false;
}

describe('the keyboard alone', () => {
  it('host: connect, answer a form, a second tool waits for it, focus follows the call', async () => {
    const page = await hostPage(s, 'modern', false);
    expect(await tabTo(page, (f) => f.includes('#connect') || f.includes('[id=connect]'))).toBe(
      true,
    );
    await page.keyboard.press('Enter');
    await page.waitForSelector('button[data-tool=feedback]');
    // Connected: focus is on the first tool, one Tab from the next.
    await expect.poll(() => focused(page)).toContain('[data-tool=book_trip]');
    expect(await tabTo(page, (f) => f.includes('[data-tool=feedback]'))).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForSelector('elicit-form >> input[name$=rating]');
    // The server's form takes focus.
    await expect.poll(() => focused(page)).toMatch(/^input\[.*name=f\d+-rating/);

    // Enter on another tool while the form is open starts nothing; focus goes back to the form.
    expect(await tabTo(page, (f) => f.includes('[data-tool=slow_count]'), true)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatch(/^input\[.*name=f\d+-rating/);
    expect(await page.$('.call[data-tool=slow_count]')).toBeNull();
    expect(await page.textContent('#status')).toBe('Answer or cancel the open form first.');

    // Answer: Space picks the focused choice, Tab to the comment, Enter reviews, Enter sends.
    await page.keyboard.press('Space');
    expect(await tabTo(page, (f) => f.includes('name=comment'))).toBe(true);
    await page.keyboard.type('By keyboard');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toContain('[part=submit]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#log .result');
    // Focus lands on the result, not on <body>.
    await expect.poll(() => focused(page)).toMatch(/^p\[class=entry result/);
    await page.close();
  }, 60_000);

  it('host: Escape closes an untouched arguments form and focus returns to its tool', async () => {
    const page = await hostPage(s);
    await page.focus('button[data-tool=book_trip]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('elicit-form >> input[name=city]');
    await expect.poll(() => focused(page)).toMatch(/^input\[.*name=city/);
    await page.keyboard.press('Escape');
    await page.waitForSelector('elicit-form', { state: 'detached' });
    await expect.poll(() => focused(page)).toContain('[data-tool=book_trip]');
    expect(await page.$('.call')).toBeNull();
    await page.close();
  }, 60_000);

  it('connect pages: sign in with Space, type a secret, Enter saves it', async () => {
    await context.clearCookies();
    const tab = await connectPageOf(s, 'set_api_key');
    expect(new URL(tab.url()).pathname).toBe('/elicit/login');
    expect(await tabTo(tab, (f) => f.startsWith('button') && f.includes('primary'))).toBe(true);
    await Promise.all([tab.waitForSelector('#secret'), tab.keyboard.press('Space')]);
    expect(await tabTo(tab, (f) => f.includes('[id=secret]'))).toBe(true);
    await tab.keyboard.type('typed-by-keyboard');
    await Promise.all([
      tab.waitForSelector('text=You can close this tab'),
      tab.keyboard.press('Enter'),
    ]);
    expect(await tab.textContent('h1')).toBe('Done');
    await tab.close();
  }, 60_000);

  it('connect pages: the provider page leads to the provider on Enter; No thanks on Space', async () => {
    expect(demo.calendar).toBe(true);
    const tab = await connectPageOf(s, 'connect_calendar');
    await tab.waitForSelector('#continue');
    // The main action comes before the way out.
    expect(await tabTo(tab, (f) => f.includes('[id=continue]'))).toBe(true);
    const page = new URL(tab.url());
    await Promise.all([tab.waitForURL((u) => u.host !== page.host), tab.keyboard.press('Enter')]);
    await tab.goBack();
    await tab.waitForSelector('#continue');
    expect(await tabTo(tab, (f) => f.startsWith('button') && !f.includes('link'))).toBe(true);
    expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe('No thanks');
    await Promise.all([
      tab.waitForSelector('text=Nothing was saved.'),
      tab.keyboard.press('Space'),
    ]);
    await tab.close();
  }, 60_000);
});
