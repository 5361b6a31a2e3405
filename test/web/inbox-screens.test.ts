/**
 * The two web inboxes as a person and an accessibility auditor meet them, in Chromium: the
 * gateway's inbox and the connect pages' inbox of `createServer({ connect, inbox })`, each empty,
 * with a form question and a URL question waiting, and with both answered (the screens of
 * test/support/screens.ts, which docs/web.md shows), in light and dark, at 1280×800 and 375×740.
 * On each: axe-core with the WCAG 2.2 AA rules finds nothing, the page never scrolls sideways,
 * every Tab stop shows a focus indicator of at least 3:1, and the page's CSP blocks nothing. Then
 * both questions are answered with the keyboard alone (Tab, typing, Enter).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { axeViolations, type FocusStop, focused, overflow, tabStops } from '../support/checks.ts';
import {
  bothWaiting,
  INBOX_SCREENS,
  INBOXES,
  type InboxStage,
  type StagedInbox,
  startInboxStage,
  TERMS,
} from '../support/screens.ts';

const SCHEMES = ['light', 'dark'] as const;
const SIZES = [
  { name: 'wide', width: 1280, height: 800 },
  { name: 'narrow', width: 375, height: 740 },
] as const;

let browser: Browser;
let context: BrowserContext;
let stage: InboxStage;
const blocked: string[] = [];

beforeAll(async () => {
  stage = await startInboxStage();
  browser = await launchBrowser();
  context = await browser.newContext();
  // The page the URL question opens, answered by the browser itself.
  await context.route(`${TERMS}**`, (r) =>
    r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Terms</title>' }),
  );
  // Every page runs under its own CSP: anything the CSP blocks is a failure of the screen.
  context.on('page', (page) =>
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text()))
        blocked.push(`${page.url()}: ${m.text()}`);
    }),
  );
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stage?.close();
});

/** Per inbox, scheme and size: what axe found (printed at the end, so a run shows the tally). */
const tally: string[] = [];
afterAll(() => {
  if (tally.length > 0)
    console.log(`axe (WCAG 2.2 AA), violations per inbox:\n${tally.join('\n')}`);
});

const weak = (stops: FocusStop[]) =>
  stops.filter((f) => f.contrast < 3).map((f) => `${f.element}: ${f.contrast}:1 (${f.how})`);

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

/** Presses Tab until `want` holds for the focused element; false when it never does. */
async function tabTo(page: Page, want: (f: string) => boolean): Promise<boolean> {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if (want(await focused(page))) return true;
  }
  return false;
}

describe.each(INBOXES)('%s inbox', (name) => {
  const inbox = (): StagedInbox => stage.inboxes.find((i) => i.name === name) as StagedInbox;

  it.each(
    INBOX_SCREENS.filter((screen) => screen.of?.includes(name) ?? true).map(
      (screen) => [screen.name, screen] as const,
    ),
  )(
    '%s: light and dark, wide and narrow: axe finds nothing, nothing scrolls sideways, focus is visible',
    async (_screen, screen) => {
      blocked.length = 0;
      const problems: string[] = [];
      const { page, leave } = await screen.reach(inbox(), context);
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const size of SIZES) {
          await page.setViewportSize({ width: size.width, height: size.height });
          const where = `${screen.name} ${scheme} ${size.name}`;
          const violations = await axeViolations(page);
          tally.push(
            `  ${inbox().label} ${where}: ${violations.length === 0 ? 'none' : violations.map((v) => `${v.id} (${v.targets.length})`).join(', ')}`,
          );
          for (const v of violations)
            problems.push(`${where}: axe ${v.id} (${v.help}) at ${v.targets.join(' | ')}`);
          const o = await overflow(page);
          if (o.excess > 0)
            problems.push(`${where}: ${o.excess}px wider than the screen (${o.widest})`);
          if (size.name === 'wide') {
            const stops = await tabStops(page);
            if (screen.name === 'waiting' && stops.length < 2)
              problems.push(`${where}: ${stops.length} Tab stops`);
            for (const w of weak(stops)) problems.push(`${where}: focus indicator ${w}`);
            if (stops.length > 0)
              tally.push(
                `  ${inbox().label} ${where}: ${stops.length} Tab stops, faintest focus indicator ${Math.min(...stops.map((f) => f.contrast))}:1`,
              );
          }
        }
      }
      problems.push(...blocked.splice(0));
      expect(problems).toEqual([]);
      await leave();
      await page.close();
    },
    90_000,
  );

  it('answered in the page: the calls end with the answers', async () => {
    const { page, client, answer } = await bothWaiting(inbox(), context);
    const r = await answer();
    expect(textOf(r.order)).toBe('2 × Soup');
    expect(textOf(r.terms)).toBe('decline');
    await page.close();
    await client.close();
  }, 90_000);

  it('the keyboard alone: answers the form (Tab, typing, Enter) and opens the URL page (Enter)', async () => {
    blocked.length = 0;
    const { page, client, order, terms } = await bothWaiting(inbox(), context);
    await page.evaluate(() => {
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    expect(await tabTo(page, (f) => f.includes('name=dish'))).toBe(true);
    await page.keyboard.type('soup');
    expect(await tabTo(page, (f) => f.includes('name=count'))).toBe(true);
    await page.keyboard.type('2');
    // Enter reviews, Enter again sends.
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toContain('[part=submit]');
    await page.keyboard.press('Enter');
    expect(textOf(await order)).toBe('2 × soup');
    await page.waitForSelector('text=Your answer was received.');
    expect(await tabTo(page, (f) => f.includes('[part=open]'))).toBe(true);
    const opened = context.waitForEvent('page');
    await page.keyboard.press('Enter');
    const tab = await opened;
    expect(textOf(await terms)).toBe('accept');
    expect(tab.url()).toContain('terms.example');
    await tab.close();
    expect(blocked).toEqual([]);
    await page.close();
    await client.close();
  }, 90_000);
});
