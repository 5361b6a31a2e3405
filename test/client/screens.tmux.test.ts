/**
 * What a person sees at `elicit host`'s menu, in a real terminal (tmux): server log lines
 * arriving while the menu is open are printed above it, and the menu stays on the screen once
 * (never drawn again per line); Enter on a one-key choice does what the screen shows (Enter on
 * "Call" calls, it does not open "Which field?"); lines arriving while arguments are typed wait
 * for those screens to close.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
let session = '';
let n = 0;
// The whole scrollback: a copy of the menu anywhere in it counts.
const scrollback = () => tmux('capture-pane', '-p', '-S', '-', '-t', session);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);

async function waitFor(text: string, from = scrollback, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = from();
    if (s.includes(text)) return s;
    if (Date.now() > end) throw new Error(`"${text}" did not appear; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const menu = () => {
  const s = scrollback();
  return s.slice(s.lastIndexOf('◆  Call a tool'));
};

async function choose(item: string, key: 'Down' | 'Up' = 'Down'): Promise<void> {
  await waitFor('↑/↓ to navigate', menu);
  for (let i = 0; i < 60 && !menu().includes(`● ${item}`); i++) {
    keys(key);
    await new Promise((r) => setTimeout(r, 120));
  }
  await waitFor(`● ${item}`, menu);
  keys('Enter');
}

function host(server = `${process.execPath} test/fixtures/host-server.ts --stdio`): void {
  session = `elicit-screens-${process.pid}-${++n}`;
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '110',
    '-y',
    '45',
    `cd ${process.cwd()} && NO_COLOR=1 ${process.execPath} src/cli/main.ts host --log-level info -- ${server}; echo EXIT=$?; sleep 60`,
  );
}

afterEach(() => {
  try {
    tmux('kill-session', '-t', session);
  } catch {}
});

describe('the menu in a real terminal', () => {
  it('log lines arriving at the menu are printed above it; the menu is on screen once', async () => {
    host();
    await choose('chatter');
    await waitFor('chatting');
    const shown = await waitFor('chatter 5');
    // Let any redraw that would follow the last line happen.
    await new Promise((r) => setTimeout(r, 500));
    const all = scrollback();
    expect(all.split('◆  Call a tool').length - 1).toBe(1);
    // No closed (cancelled) copies of the menu either.
    expect(all).not.toContain('■  Call a tool');
    for (let i = 1; i <= 5; i++) expect(all.split(`chatter ${i}`).length - 1).toBe(1);
    // Every line sits above the live menu, in order.
    const at = (t: string) => all.indexOf(t);
    expect(at('chatter 1')).toBeLessThan(at('chatter 5'));
    expect(at('chatter 5')).toBeLessThan(at('◆  Call a tool'));
    expect(shown).toContain('[info]');
    // The menu still takes keys where it is.
    await choose('ping');
    await waitFor('pong');
  }, 60_000);

  it('Enter at the review calls (the highlighted "Call"), never "Which field?"', async () => {
    host();
    // Log lines that arrive while the arguments are typed wait until those screens close.
    await choose('chatter');
    await waitFor('chatting');
    await choose('echo');
    await waitFor('◆  word');
    await new Promise((r) => setTimeout(r, 2_000));
    keys('-l', 'hi');
    keys('Enter');
    // The review highlights "Call"; Enter there used to resolve with no choice at all.
    await waitFor('◆  Call echo with these arguments?');
    keys('Enter');
    await waitFor('echo: hi');
    const all = scrollback();
    expect(all).not.toContain('Which field?');
    const screens = all.slice(all.indexOf('◇  word'), all.indexOf('◇  Call echo with these'));
    expect(screens).not.toContain('chatter');
    for (let i = 1; i <= 5; i++) expect(all.split(`chatter ${i}`).length - 1).toBe(1);
  }, 60_000);

  it('Roots: a directory added while the host runs reaches server-everything (roots/list_changed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'elicit-roots-menu-'));
    const everything = join(
      process.cwd(),
      'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    );
    host(`${process.execPath} ${everything} stdio`);
    // The host declares roots: the server asks for them at once (none yet).
    await waitFor('Roots updated: 0 root(s)');
    await choose('Roots', 'Up');
    await waitFor('◆  Roots: no directory yet');
    keys('Enter'); // "Add a directory" comes first when there is no root
    await waitFor('◆  Directory to add');
    keys('-l', dir);
    keys('Enter');
    await waitFor('the server was told the roots changed');
    await waitFor('Roots updated: 1 root(s)');
    await waitFor('◆  Roots: the server may work in this directory');
    keys('Down', 'Down', 'Enter'); // Remove …, Add a directory, Back
    await choose('Get Roots List Tool', 'Up');
    await waitFor(pathToFileURL(dir).href);
  }, 90_000);
});
