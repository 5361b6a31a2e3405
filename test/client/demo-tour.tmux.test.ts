/**
 * Every demo tool in one sitting, in a real terminal (tmux), on both eras, URL mode first: each
 * screen belongs to its call and closes with it, so the keys for the next screen reach only
 * that screen (a URL waiting screen left open used to take the next form's keys). The browser is
 * a headless Chromium program that signs in, consents or types the key, as a person would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
let session = '';
const screen = () => tmux('capture-pane', '-p', '-S', '-2000', '-t', session);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The screen from the last place `mark` appears (what is live now); empty before it appears. */
const since = (mark: string) => {
  const s = screen();
  const at = s.lastIndexOf(mark);
  return at === -1 ? '' : s.slice(at);
};

async function waitFor(text: string, from = '', timeoutMs = 60_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = from === '' ? screen() : since(from);
    if (s.includes(text)) return s;
    if (Date.now() > end) throw new Error(`"${text}" did not appear; the screen was:\n${screen()}`);
    await sleep(150);
  }
}

const MENU = '◆  Call a tool, get a prompt or read a resource';

/** From the menu, moves to `item` (wherever the cursor is) and picks it. */
async function choose(item: string): Promise<void> {
  await waitFor('↑/↓ to navigate', MENU);
  for (let i = 0; i < 12 && !since(MENU).includes(`● ${item}`); i++) {
    keys('Down');
    await sleep(120);
  }
  await waitFor(`● ${item}`, MENU);
  keys('Enter');
}

afterEach(() => {
  try {
    tmux('kill-session', '-t', session);
  } catch {}
});

describe('the demo tour in a real terminal', () => {
  it.each(['legacy', 'modern'])(
    'every tool in sequence on the %s era; each screen takes only its own keys',
    async (era) => {
      const dir = mkdtempSync(join(tmpdir(), `elicit-tour-${era}-`));
      const bot = join(dir, 'browser');
      writeFileSync(
        bot,
        `#!/bin/sh\nexec ${process.execPath} ${join(process.cwd(), 'test/fixtures/browser-bot.ts')} "$1" >/dev/null 2>&1\n`,
        { mode: 0o755 },
      );
      session = `elicit-tour-${process.pid}-${era}`;
      tmux(
        'new-session',
        '-d',
        '-s',
        session,
        '-x',
        '120',
        '-y',
        '50',
        `cd ${dir} && NO_COLOR=1 ELICIT_BROWSER=${bot} ${process.execPath} ${join(process.cwd(), 'src/cli/main.ts')} demo --era ${era}; echo EXIT=$?; sleep 60`,
      );

      // URL mode first: a page to open, then the waiting screen.
      await choose('Open a page');
      await waitFor('url (optional)', 'Open a page: arguments');
      keys('Enter');
      await waitFor('Call Open a page with these arguments?', 'Open a page: arguments');
      keys('s');
      await waitFor('Open it in your browser?', 'wants you to open a page');
      keys('o');
      await waitFor('Finish in your browser', 'wants you to open a page');
      if (era === 'modern') keys('r'); // the retried call is answered once the person says done
      await waitFor('You opened the page.', 'wants you to open a page');
      if (era === 'legacy') {
        // The call ended on its own: its waiting screen closed with it.
        await waitFor('(The call is over: that screen closed.)', 'wants you to open a page');
      }

      // A form: every key goes to it, not to the waiting screen of the call before.
      await choose('Give feedback');
      await waitFor('How was it?', 'asks for input');
      keys('Enter'); // Loved it
      await waitFor('Anything else?', 'asks for input');
      keys('-l', 'roomy screens');
      keys('Enter');
      const review = await waitFor('Send this to elicit-demo?', 'asks for input');
      expect(review).toContain('How was it?: Loved it');
      expect(review).toContain('Anything else?: roomy screens');
      keys('s');
      await waitFor('Thanks! You loved it: “roomy screens”.', 'Send this to elicit-demo?');

      await choose('Book a trip');
      await waitFor('city', 'Book a trip: arguments');
      keys('-l', 'Oslo');
      keys('Enter');
      await waitFor('Call Book a trip with these arguments?', 'Book a trip: arguments');
      keys('s');
      await waitFor('Full name', 'Who is travelling to Oslo?');
      for (const typed of ['Ada Lovelace', 'ada@example.com', '2026-12-24']) {
        keys('-l', typed);
        keys('Enter');
        await sleep(400);
      }
      keys('Enter'); // seat: Window (the default)
      await waitFor('Checked bags', 'Who is travelling to Oslo?');
      keys('Enter'); // bags: 1 (the default)
      await waitFor('Extras', 'Who is travelling to Oslo?');
      keys('Space');
      keys('Enter'); // Wi-Fi
      await waitFor('Travel insurance', 'Who is travelling to Oslo?');
      keys('Enter');
      await waitFor('Send this to elicit-demo?', 'Who is travelling to Oslo?');
      keys('s');
      await waitFor('Ada Lovelace to Oslo on 2026-12-24, window seat, 1 bag(s), extras: wifi');

      await choose('Count slowly');
      await waitFor('Counted to 20.', '', 90_000);

      await choose('Migrate records (a task)');
      await waitFor('Switch over', 'Half the records are copied');
      keys('Enter'); // Yes
      await waitFor('Send this to elicit-demo?', 'Half the records are copied');
      keys('s');
      await waitFor('switched over to the new database', 'Half the records are copied', 90_000);

      // The secret page and the calendar: URL mode that the browser finishes.
      await choose('Set an API key');
      await waitFor('Open it in your browser?', 'Weather API key');
      keys('o');
      await waitFor('Finish in your browser', 'Weather API key');
      if (era === 'modern') {
        // The browser program has finished when the server's page says so; then "Done".
        await sleep(8_000);
        keys('r');
      }
      await waitFor('Saved your API key on the server.', 'Weather API key', 90_000);

      await choose('Read my calendar');
      await waitFor('Open it in your browser?', 'Connect your calendar');
      keys('o');
      await waitFor('Finish in your browser', 'Connect your calendar');
      if (era === 'modern') {
        await sleep(10_000);
        keys('r');
      }
      await waitFor('Today for demo-user: 09:30 Standup', 'Connect your calendar', 90_000);

      await choose('prompt: Brief for a trip');
      await waitFor('city', 'Brief for a trip: arguments');
      keys('-l', 'Bergen');
      keys('Enter');
      await waitFor('Get Brief for a trip with these arguments?', 'Brief for a trip: arguments');
      keys('s');
      await waitFor('Pace', 'How do you like to spend a day in Bergen?');
      keys('Down', 'Enter'); // Packed
      await waitFor('Send this to elicit-demo?', 'How do you like to spend a day in Bergen?');
      keys('s');
      await waitFor('Plan a day in Bergen at a packed pace.');

      await choose('Quit');
      const end = await waitFor('EXIT=');
      expect(end).toContain('EXIT=0');
      // No key ever reached a screen that was not listening (raw escape sequences echoed).
      expect(end).not.toMatch(/\^\[\[/);
      // Library noise stays off the terminal.
      expect(end).not.toContain('oidc-provider');
    },
    300_000,
  );
});
