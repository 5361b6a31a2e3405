/**
 * Sampling and roots through `elicit host`: roots from --root reach the server; a scripted
 * run declines sampling (no one is there to write the reply); in a real terminal (tmux) the
 * person sees the request with the model wishes and writes the reply.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const fixture = join(process.cwd(), 'test/fixtures/sampling-server.ts');
const root = mkdtempSync(join(tmpdir(), 'elicit-root-'));

function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['src/cli/main.ts', ...args],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : 1, out: stdout + stderr }),
    );
  });
}

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const session = `elicit-sampling-${process.pid}`;
afterAll(() => {
  try {
    tmux('kill-session', '-t', session);
  } catch {}
});

describe('sampling and roots', () => {
  it('--root answers roots/list; a scripted run declines sampling', async () => {
    const r = await cli([
      'host',
      '--root',
      root,
      '--call',
      'list_roots',
      '--call',
      'ask_model',
      '--',
      process.execPath,
      fixture,
    ]);
    expect(r.out).toContain(pathToFileURL(root).href);
    expect(r.out).toContain('no reply: MCP error -1: The person declined the sampling request.');
    expect(r.code).toBe(0);
  }, 60_000);

  it('in a terminal the person sees the request and the model wishes, and writes the reply', async () => {
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '110',
      '-y',
      '45',
      `cd ${process.cwd()} && NO_COLOR=1 ${process.execPath} src/cli/main.ts host -- ${process.execPath} ${fixture}; echo EXIT=$?; sleep 30`,
    );
    const screen = () => tmux('capture-pane', '-p', '-S', '-200', '-t', session);
    const waitFor = async (text: string) => {
      for (let i = 0; i < 200; i++) {
        if (screen().includes(text)) return screen();
        await new Promise((r) => setTimeout(r, 150));
      }
      throw new Error(`"${text}" did not appear:\n${screen()}`);
    };
    await waitFor('↑/↓ to navigate');
    tmux('send-keys', '-t', session, 'Down', 'Enter'); // ask_model
    const asked = await waitFor('Reply to it?');
    expect(asked).toContain('asks for a model');
    expect(asked).toContain('system: Answer in one word.');
    expect(asked).toContain('user: Name a colour.');
    expect(asked).toContain('model wishes: models like claude-3; speed 0.9');
    expect(asked).toContain('at most 20 tokens');
    tmux('send-keys', '-t', session, 'w');
    await waitFor('Your reply');
    tmux('send-keys', '-t', session, '-l', 'teal');
    tmux('send-keys', '-t', session, 'Enter');
    await waitFor('model said: teal');
  }, 60_000);
});
