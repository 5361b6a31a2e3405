/**
 * Screenshots of `elicit demo --web` for docs/web.md: each screen in light at 1280 px and in dark
 * at 375 px, written to docs/images/screen-<name>-<scheme>-<width>.png. The screens are the ones
 * the browser suite checks (test/support/screens.ts). Run: `npm run screenshots`.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebDemo } from '../src/cli/web-demo.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { SCREENS } from '../test/support/screens.ts';

/** The screens shown in the docs (the suite checks more). */
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

const out = 'docs/images';
mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'elicit-screenshots-'));
const demo = await startWebDemo({ dir });
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ deviceScaleFactor: 1 });
  for (const name of SHOWN) {
    const screen = SCREENS.find((s) => s.name === name);
    if (screen === undefined) throw new Error(`No screen named ${name} in test/support/screens.ts`);
    const page = await screen.reach({ demo, context });
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
    await page.close();
  }
} finally {
  await browser.close();
  await demo.close();
  rmSync(dir, { recursive: true, force: true });
}
