/**
 * The runnable stories in examples/: each story's client against its own server, as child
 * processes, on every revision; and the docs' excerpts of them, which must be the files' text.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stop } from './support/processes.ts';

const root = resolve(import.meta.dirname, '..');
const REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
const REFUSED_URL_MODE =
  'This tool needs to ask you for input, but the client did not declare URL elicitation support. Use a client that supports it, or pass the values as arguments.';

/** What each story's client prints last, the same on every revision. */
const stories = {
  form: 'Table for 4 at 20:30 under Ada.',
  'multi-round':
    'Booked HOLD-1 for Grace: Lisbon, 2027-03-14, 3 night(s), window seat; 1 hold(s) made.',
  secret: 'Weather key saved (looks right).',
  connect: '3 meetings for ada: 09:30 Standup; 12:00 Lunch with Ada; 16:00 Design review',
} as const;

// Twelve servers start side by side, each about a second of CPU before it prints its URL: on
// two cores shared with other work (load ~20) one can take well over 20 s to be scheduled
// through its start. A server that never prints still fails.
const SERVER_START_MS = 45_000;
const CLIENT_MS = 60_000;

/** Starts a story's server and resolves with the MCP URL it prints first. */
function startServer(story: string, running: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, [join(root, 'examples', story, 'server.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${story} server printed no URL in time\n${err}`)),
      SERVER_START_MS,
    );
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${story} server exited with ${code}\n${err}`));
    });
  });
}

/** Runs a story's client to its end (killed past the bound). */
function runClient(
  story: string,
  url: string,
  revision: string,
  running: ChildProcess[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [join(root, 'examples', story, 'client.ts'), url, revision],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), CLIENT_MS);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// Each run has its own server and processes, so the twelve run side by side.
describe.concurrent.each(Object.entries(stories))('story %s', (story, last) => {
  it.each(REVISIONS)(
    'runs on %s',
    async (revision) => {
      const running: ChildProcess[] = [];
      try {
        const url = await startServer(story, running);
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        const { code, stdout, stderr } = await runClient(story, url, revision, running);
        expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
        // URL mode arrived in 2025-11-25: a 2025-06-18 peer is never sent a URL elicitation,
        // so the URL-mode stories get the tool's clear refusal there (see docs/server.md).
        const urlMode = story === 'secret' || story === 'connect';
        expect(stdout.trimEnd().split('\n').at(-1)).toBe(
          urlMode && revision === '2025-06-18' ? REFUSED_URL_MODE : last,
        );
      } finally {
        await Promise.all(running.map((child) => stop(child)));
      }
    },
    SERVER_START_MS + CLIENT_MS + 10_000,
  );
});

/**
 * A docs excerpt of a story is a ```typescript block right after a link to its file (not a
 * ```ts block: test/docs.test.ts runs those whole, and an excerpt is not a whole program).
 */
describe('the docs quote the stories as they are', () => {
  const excerpts = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .flatMap((f) =>
      [
        ...readFileSync(join(root, 'docs', f), 'utf8').matchAll(
          /\]\(\.\.\/(examples\/[\w-]+\/[\w-]+\.ts)\)[^`]*?```typescript\n([\s\S]*?)```/g,
        ),
      ].map((m) => ({ doc: f, file: m[1] as string, text: m[2] as string })),
    );

  it('every story has an excerpt in the docs', () => {
    expect(new Set(excerpts.map((e) => e.file))).toEqual(
      new Set(Object.keys(stories).map((s) => `examples/${s}/server.ts`)),
    );
  });

  it.each(excerpts)('$doc quotes $file verbatim', ({ file, text }) => {
    expect(text.split('\n').length).toBeGreaterThan(5);
    expect(readFileSync(join(root, file), 'utf8')).toContain(text);
  });
});
