/**
 * One end-to-end run in a real terminal: `elicit demo` inside tmux, driven with send-keys and
 * read with capture-pane.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';

const session = `elicit-e2e-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session);

async function waitFor(text: string, timeoutMs = 20_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (s.includes(text)) return s;
    if (Date.now() > end) throw new Error(`"${text}" did not appear; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

afterAll(() => {
  try {
    tmux('kill-session', '-t', session);
  } catch {}
});

describe('elicit demo in a real terminal', () => {
  it('answers a form with the keyboard and shows the result', async () => {
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '110',
      '-y',
      '45',
      `cd ${process.cwd()} && NO_COLOR=1 ${process.execPath} src/cli/main.ts demo`,
    );
    await waitFor('Call a tool');
    tmux('send-keys', '-t', session, 'Down', 'Enter'); // feedback
    await waitFor('How did you like elicit?');
    await waitFor('How was it?');
    tmux('send-keys', '-t', session, 'Enter'); // Loved it
    await waitFor('Anything else?');
    tmux('send-keys', '-t', session, '-l', 'Great tool');
    tmux('send-keys', '-t', session, 'Enter');
    const review = await waitFor('Review before sending');
    expect(review).toContain('How was it?: Loved it');
    expect(review).toContain('Anything else?: Great tool');
    tmux('send-keys', '-t', session, 's');
    const done = await waitFor('Thanks! You loved it');
    expect(done).toContain('Thanks! You loved it: “Great tool”.');
  }, 60_000);
});
