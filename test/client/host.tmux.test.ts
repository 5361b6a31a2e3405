/**
 * `elicit host`, the terminal host, in a real terminal (tmux): cancelling a running call,
 * a progress bar, a prompt that asks for input, reconnecting after the server restarts, and a
 * URL step (-32042) whose completion is never announced, finished with "Done, retry now".
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

async function waitFor(text: string, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (s.includes(text)) return s;
    if (Date.now() > end) throw new Error(`"${text}" did not appear; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Output lines of a fixture process, for waiting on what the server saw. */
function lines(child: ChildProcess): { has(text: string): Promise<void> } {
  let seen = '';
  child.stdout?.on('data', (d: Buffer) => {
    seen += d.toString();
  });
  return {
    async has(text) {
      const end = Date.now() + 20_000;
      while (!seen.includes(text)) {
        if (Date.now() > end) throw new Error(`the server never printed "${text}": ${seen}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** Starts the host in a fresh tmux session; the shell prints EXIT=<code> when it ends. */
function host(args: string): void {
  session = `elicit-host-${process.pid}-${++n}`;
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '110',
    '-y',
    '50',
    `cd ${process.cwd()} && NO_COLOR=1 ELICIT_BROWSER=/bin/true ${process.execPath} src/cli/main.ts host ${args}; echo EXIT=$?; sleep 60`,
  );
}

/** From the menu, moves to `item` (the cursor stays where the last choice left it) and picks it. */
async function choose(item: string): Promise<void> {
  await waitFor('↑/↓ to navigate');
  const menu = () => {
    const s = screen();
    return s.slice(s.lastIndexOf('◆  Call a tool'));
  };
  for (let i = 0; i < 10 && !menu().includes(`● ${item}`); i++) {
    keys('Down');
    await new Promise((r) => setTimeout(r, 120));
  }
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

async function start(port: number) {
  server = await startProcess('test/fixtures/host-server.ts', [String(port)]);
  return lines(server);
}

describe('elicit host in a real terminal', () => {
  it('Ctrl-C cancels a running call (the server hears it); Ctrl-C at the menu quits with 130', async () => {
    const port = await freePort();
    const events = await start(port);
    host(`http://127.0.0.1:${port}/mcp`);
    await choose('wait');
    await waitFor('Calling wait…');
    keys('C-c');
    await waitFor('Cancelled. The server was told to stop.');
    await events.has('cancelled wait');
    await waitFor('↑/↓ to navigate');
    keys('C-c');
    await waitFor('EXIT=130');
  }, 90_000);

  it('shows progress as a bar and the server log messages', async () => {
    const port = await freePort();
    await start(port);
    host(`http://127.0.0.1:${port}/mcp --log-level info`);
    await choose('count');
    const during = await waitFor('% step');
    expect(during).toMatch(/Calling count ▕[█░]{20}▏ \d+% step \d/);
    const done = await waitFor('counted to 5');
    expect(done).toContain('[info] step 1');
  }, 90_000);

  it('a prompt that asks for input', async () => {
    const port = await freePort();
    await start(port);
    host(`http://127.0.0.1:${port}/mcp`);
    await choose('prompt: greet');
    await waitFor('place');
    keys('-l', 'Oslo');
    keys('Enter');
    const args = await waitFor('Get greet with these arguments?');
    expect(args).not.toContain('Send this to');
    keys('s');
    await waitFor('Who is greeted?');
    await waitFor('Name');
    keys('-l', 'Ada');
    keys('Enter');
    await waitFor('Send this to host-fixture?');
    keys('s');
    await waitFor('user: Greet Ada in Oslo');
  }, 90_000);

  it('reconnects when the server restarted and forgot the session', async () => {
    const port = await freePort();
    await start(port);
    host(`http://127.0.0.1:${port}/mcp`);
    await choose('ping');
    await waitFor('pong');
    await stop(server);
    await start(port);
    await choose('ping');
    const s = await waitFor('reconnecting…');
    expect(s).toContain('The server lost the session (restarted?)');
    // The resent call's result, after the reconnect message (the menu's hint says "Answers pong").
    const after = () => screen().split('The server lost the session').at(-1) ?? '';
    for (let i = 0; i < 200 && !after().includes('◆  pong'); i++)
      await new Promise((r) => setTimeout(r, 150));
    expect(after()).toContain('◆  pong');
  }, 90_000);

  it('-32042 without a completion notice: "Done, retry now" retries the call', async () => {
    const port = await freePort();
    await start(port);
    host(`http://127.0.0.1:${port}/mcp`);
    await choose('sign_in');
    await waitFor('Open it in your browser?');
    keys('o');
    await waitFor('Finish in your browser, then choose Done.');
    await waitFor('Open the page again');
    keys('r');
    await waitFor('signed in on call 2');
  }, 90_000);
});
