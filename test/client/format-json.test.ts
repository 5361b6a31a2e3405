/**
 * `elicit host --format json` for programs: JSON lines on stdout (the server, then each call
 * with its result or error), people's lines on stderr, stable exit codes; and `--version`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemo } from '../../src/demo/stack.ts';

const dir = mkdtempSync(join(tmpdir(), 'elicit-json-'));
let demo: DemoStack | undefined;
beforeAll(async () => {
  demo = await startDemo({ dir });
  writeFileSync(
    join(dir, 'answers.json'),
    JSON.stringify({
      answers: [{ match: 'How did you like', action: 'accept', content: { rating: 'fine' } }],
    }),
  );
}, 60_000);
afterAll(async () => {
  await demo?.close();
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['src/cli/main.ts', ...args],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : ((error.code as number) ?? 1), stdout, stderr }),
    );
  });
}

describe('--format json', () => {
  it('prints the server and each call as JSON lines; people read stderr; exit 0', async () => {
    const url = (demo as DemoStack).url.href;
    const r = await cli([
      'host',
      url,
      '--call',
      'feedback',
      '--answers',
      join(dir, 'answers.json'),
      '--format',
      'json',
    ]);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].server.name).toBe('elicit-demo');
    expect(lines[0].tools.map((t: { name: string }) => t.name)).toContain('feedback');
    expect(lines[1]).toMatchObject({
      call: 'feedback',
      arguments: {},
      result: { content: [{ type: 'text', text: 'Thanks! You found it fine.' }] },
    });
    expect(lines).toHaveLength(2);
    expect(r.stderr).toContain('How did you like elicit?');
    expect(r.code).toBe(0);
  }, 60_000);
  it('a call that fails is a JSON error and exit 1; an unknown tool exit 2', async () => {
    const url = (demo as DemoStack).url.href;
    const bad = await cli([
      'host',
      url,
      '--call',
      'book_trip',
      '--args',
      '{"city": 5}',
      '--format',
      'json',
    ]);
    const last = JSON.parse(bad.stdout.trim().split('\n').at(-1) as string);
    expect(last.call).toBe('book_trip');
    expect(last.result?.isError === true || last.error !== undefined).toBe(true);
    expect(bad.code).toBe(1);
    const unknown = await cli(['host', url, '--call', 'nope', '--format', 'json']);
    expect(JSON.parse(unknown.stdout.trim().split('\n').at(-1) as string).error.message).toContain(
      'nope',
    );
    expect(unknown.code).toBe(2);
    const usage = await cli(['host', url, '--format', 'yaml', '--call', 'feedback']);
    expect(usage.stderr).toContain('--format must be text or json');
    expect(usage.code).toBe(2);
  }, 120_000);
});

describe('--version', () => {
  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const r = await cli(['--version']);
    expect(r.stdout).toBe(`elicit ${pkg.version}\n`);
    expect(r.code).toBe(0);
  });
});
