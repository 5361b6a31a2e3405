/**
 * `elicit host` following tasks in a real terminal (tmux), against the tasks fixture on the
 * plain SDK: the task's status on the status line, its question answered in the terminal,
 * Ctrl-C sending tasks/cancel and returning to the menu, and a server that goes away and comes
 * back while a task runs (the host reconnects and follows the same task, not a new call).
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, startProcess, stop } from '../support/processes.ts';

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
let session = '';
let n = 0;
const screen = () => tmux('capture-pane', '-p', '-S', '-200', '-t', session);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);

async function waitFor(text: string | RegExp, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (typeof text === 'string' ? s.includes(text) : text.test(s)) return s;
    if (Date.now() > end) throw new Error(`"${text}" did not appear; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** What the fixture printed: one line per request. */
function lines(child: ChildProcess) {
  let seen = '';
  child.stdout?.on('data', (d: Buffer) => {
    seen += d.toString();
  });
  return {
    all: () => seen.split('\n'),
    async has(text: string) {
      const end = Date.now() + 20_000;
      while (!seen.includes(text)) {
        if (Date.now() > end) throw new Error(`the server never printed "${text}": ${seen}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

function host(args: string): void {
  session = `elicit-tasks-${process.pid}-${++n}`;
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '120',
    '-y',
    '50',
    `cd ${process.cwd()} && NO_COLOR=1 ${process.execPath} src/cli/main.ts host ${args}; echo EXIT=$?; sleep 60`,
  );
}

// The fixture's tools, in its order.
const MENU = [
  'greet',
  'probe',
  'slow',
  'long',
  'confirm',
  'two_questions',
  'represent',
  'withdraw',
  'failing',
  'server_cancels',
  'endless',
];
async function choose(item: string): Promise<void> {
  await waitFor('↑/↓ to navigate');
  for (let i = 0; i < MENU.indexOf(item); i++) keys('Down');
  await waitFor(`● ${item}`);
  keys('Enter');
}

let server: ChildProcess | undefined;
afterEach(async () => {
  try {
    tmux('kill-session', '-t', session);
  } catch {}
  await stop(server);
  server = undefined;
});
afterAll(async () => {
  await stop(server);
});

async function start() {
  const port = await freePort();
  server = await startProcess('test/fixtures/task-server.ts', [String(port)]);
  host(`http://127.0.0.1:${port}/mcp --era modern`);
  return lines(server);
}

describe('elicit host follows tasks', () => {
  it('shows the task status while it runs; Ctrl-C sends tasks/cancel and returns to the menu', async () => {
    const events = await start();
    await choose('endless');
    await waitFor(/Calling endless \[task working: still working \(\d+\)\]/);
    keys('C-c');
    await waitFor('Cancelled. The server was told to stop.');
    await events.has('tasks/cancel task-');
    await waitFor('↑/↓ to navigate');
  }, 90_000);

  it("answers the task's question in the terminal and shows the result", async () => {
    const events = await start();
    await choose('confirm');
    await waitFor('Delete the file?');
    // The question's message is printed before its Yes/No choice is up; keys sent before that
    // reach a terminal still in line mode (Enter arrives as a newline, which no prompt takes).
    await waitFor('● Yes');
    keys('Enter');
    const review = await waitFor(/Send this to task-fixture\?|answer:/);
    if (review.includes('Send this to')) keys('s');
    await waitFor('answer: {"action":"accept","content":{"confirm":true}}');
    await events.has('tasks/update task-');
  }, 90_000);

  it('picks the running task up again after the server went away and came back', async () => {
    const events = await start();
    await choose('long');
    await waitFor(/\[task working: step [2-9] of 40\]/);
    server?.kill('SIGUSR2');
    await events.has('started again');
    await waitFor('picking task task-');
    await waitFor('done after 40 steps', 60_000);
    // One call, followed across the outage.
    expect(events.all().filter((l) => l === 'tools/call long')).toHaveLength(1);
  }, 120_000);
});
