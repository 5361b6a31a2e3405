/**
 * Screenshots for docs/web.md: each screen of `elicit demo --web`, and each screen of the two web
 * inboxes (the gateway's and the connect pages'), in light at 1280 px and in dark at 375 px,
 * written to docs/images/screen-<name>-<scheme>-<width>.png. The screens are the ones the browser
 * suites check (test/support/screens.ts). Run: `npm run screenshots`; `npm run screenshots --
 * inbox host-form` takes only the screens whose names contain one of the words.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startWebDemo } from '../src/cli/web-demo.ts';
import { launchBrowser } from '../test/support/browser.ts';
import {
  INBOX_SCREENS,
  INBOXES,
  inboxScreenName,
  SCREENS,
  startInboxStage,
} from '../test/support/screens.ts';

/** The demo's screens shown in the docs (the suite checks more). */
const SHOWN = [
  'host-form',
  'host-consent-ok',
  'host-consent-caution',
  'host-consent-danger',
  'host-consent-refused',
  'host-progress',
  'host-task',
  'host-results',
  'connect-secret',
  'connect-provider',
  'connect-done',
  'connect-failed',
];

const SHOTS = [
  { scheme: 'light', width: 1280, height: 800 },
  { scheme: 'dark', width: 375, height: 740 },
] as const;

const words = process.argv.slice(2);
const wanted = (name: string) => words.length === 0 || words.some((w) => name.includes(w));

const out = 'docs/images';
mkdirSync(out, { recursive: true });

/** Both shots of one screen. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const shot of SHOTS) {
    await page.emulateMedia({ colorScheme: shot.scheme });
    await page.setViewportSize({ width: shot.width, height: shot.height });
    // Nothing keeps focus: no ring in the picture.
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      // Page coordinates: the box below is measured from the top of the page.
      window.scrollTo(0, 0);
    });
    const file = join(out, `screen-${name}-${shot.scheme}-${shot.width}.png`);
    // The page's content with a little margin (not the empty sides of a wide window).
    const box = await page.locator('body').boundingBox();
    if (box === null) throw new Error(`${name}: the page has no body to show`);
    const x = Math.max(0, box.x - 24);
    await page.screenshot({
      path: file,
      fullPage: true,
      animations: 'disabled',
      caret: 'hide',
      clip: {
        x,
        y: 0,
        width: Math.min(shot.width, box.x + box.width + 24) - x,
        height: box.y + box.height + 24,
      },
    });
    console.log(`${file}  ${(statSync(file).size / 1024).toFixed(0)} kB`);
  }
}

async function demoScreens(context: BrowserContext): Promise<void> {
  const names = SHOWN.filter(wanted);
  if (names.length === 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'elicit-screenshots-'));
  const demo = await startWebDemo({ dir });
  try {
    for (const name of names) {
      const screen = SCREENS.find((s) => s.name === name);
      if (screen === undefined)
        throw new Error(`No screen named ${name} in test/support/screens.ts`);
      const page = await screen.reach({ demo, context });
      await shoot(page, name);
      await page.close();
    }
  } finally {
    await demo.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function inboxScreens(context: BrowserContext): Promise<void> {
  const shots = INBOXES.flatMap((inbox) =>
    INBOX_SCREENS.filter((screen) => screen.of?.includes(inbox) ?? true).map((screen) => ({
      inbox,
      screen,
      name: inboxScreenName(inbox, screen.name),
    })),
  ).filter((s) => wanted(s.name));
  if (shots.length === 0) return;
  const stage = await startInboxStage();
  try {
    for (const { inbox, screen, name } of shots) {
      const staged = stage.inboxes.find((i) => i.name === inbox);
      if (staged === undefined) throw new Error(`No inbox named ${inbox}`);
      const { page, leave } = await screen.reach(staged, context);
      await shoot(page, name);
      await leave();
      await page.close();
    }
  } finally {
    await stage.close();
  }
}

const browser = await launchBrowser();
try {
  const context = await browser.newContext({ deviceScaleFactor: 1 });
  await demoScreens(context);
  await inboxScreens(context);
} finally {
  await browser.close();
}
