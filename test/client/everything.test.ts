/**
 * `elicit host` against `@modelcontextprotocol/server-everything` (the reference server, on
 * 2025-11-25, over stdio): roots from --root, sampling declined in a scripted run, and a
 * task-augmented tool call (the tool requires a task) followed to its end, with the question the
 * task asks on the way answered.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const everything = join(
  process.cwd(),
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const dir = mkdtempSync(join(tmpdir(), 'elicit-everything-'));

function connect(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['src/cli/main.ts', 'host', ...args, '--', process.execPath, everything, 'stdio'],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 90_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : ((error.code as number) ?? 1), out: stdout + stderr }),
    );
  });
}

const sessions: string[] = [];
afterAll(() => {
  for (const session of sessions)
    try {
      execFileSync('tmux', ['kill-session', '-t', session]);
    } catch {}
});

describe('elicit host with server-everything', () => {
  it('roots, and sampling declined (exit 1: the tool reports the refusal as an error)', async () => {
    const r = await connect([
      '--root',
      dir,
      '--call',
      'get-roots-list',
      '--call',
      'trigger-sampling-request',
      '--args',
      '{"prompt":"hi"}',
    ]);
    expect(r.out).toContain(`URI: ${pathToFileURL(dir).href}`);
    expect(r.out).toContain('The person declined the sampling request.');
    expect(r.code).toBe(1);
  }, 90_000);

  it('a tool that requires a task runs as one, asks through tasks/result, and completes', async () => {
    const answers = join(dir, 'answers.json');
    writeFileSync(
      answers,
      JSON.stringify({
        answers: [
          {
            match: 'multiple interpretations',
            action: 'accept',
            content: { interpretation: 'snake' },
          },
        ],
      }),
    );
    const r = await connect([
      '--call',
      'simulate-research-query',
      '--args',
      '{"topic":"python","ambiguous":true}',
      '--answers',
      answers,
    ]);
    expect(r.out).toContain('running as task');
    expect(r.out).toContain('could have multiple interpretations');
    expect(r.out).toMatch(/◀ # Research Report: python/);
    expect(r.out).toContain('snake');
    expect(r.out).not.toContain('requires task augmentation');
    expect(r.code).toBe(0);
  }, 90_000);

  it('in a terminal: a resource template is filled in and read; a resource link is followed', async () => {
    const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
    const session = `elicit-everything-${process.pid}`;
    // A hook registered inside a test never runs: the session is ended by the suite's own hook.
    sessions.push(session);
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '120',
      '-y',
      '70',
      `cd ${process.cwd()} && NO_COLOR=1 ${process.execPath} src/cli/main.ts host -- ${process.execPath} ${everything} stdio; sleep 30`,
    );
    const screen = () => tmux('capture-pane', '-p', '-S', '-300', '-t', session);
    const menu = () => screen().slice(screen().lastIndexOf('◆  Call a tool'));
    const waitFor = async (text: string, from = screen) => {
      for (let i = 0; i < 200; i++) {
        if (from().includes(text)) return;
        await new Promise((r) => setTimeout(r, 150));
      }
      throw new Error(`"${text}" did not appear:\n${screen()}`);
    };
    const choose = async (item: string) => {
      await waitFor('↑/↓ to navigate', menu);
      for (let i = 0; i < 80 && !menu().includes(`● ${item}`); i++) {
        tmux('send-keys', '-t', session, 'Up');
        await new Promise((r) => setTimeout(r, 80));
      }
      tmux('send-keys', '-t', session, 'Enter');
    };
    await choose('template: Dynamic Text Resource');
    // The prompt itself (◆), not the description above it, which names the variable too.
    await waitFor('◆  resourceId');
    tmux('send-keys', '-t', session, '-l', '7');
    tmux('send-keys', '-t', session, 'Enter');
    await waitFor('Read Dynamic Text Resource with these arguments?');
    tmux('send-keys', '-t', session, 's');
    await waitFor('Resource 7: This is a plaintext resource');
    await choose('Get Resource Links Tool');
    await waitFor('count (number');
    tmux('send-keys', '-t', session, 'Enter');
    await waitFor('Call Get Resource Links Tool with these arguments?');
    tmux('send-keys', '-t', session, 's');
    await waitFor('link: Text Resource 2', menu);
    await choose('link: Text Resource 2');
    await waitFor('Resource 2: This is a plaintext resource');
  }, 90_000);
});
