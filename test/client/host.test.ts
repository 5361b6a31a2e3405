/**
 * `elicit host` end to end: against the conformance server over HTTP, and against a server
 * built on the plain v1 SDK over stdio (forms, a -32042 URL step with completion and retry).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { app } from '../../examples/conformance-server/server.ts';
import { httpEntry, type Listening, listen } from '../../src/server/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'elicit-connect-'));
const node = process.execPath;
// Async: the HTTP servers these runs talk to live in this process.
function elicit(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      node,
      ['src/cli/main.ts', 'host', ...args],
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({
          status: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stdout,
          stderr,
        });
      },
    );
  });
}
async function until(done: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 50));
}
function answers(data: unknown): string {
  const file = join(dir, `answers-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(data));
  return file;
}

let http: Listening;
let hits = 0;
let page: ReturnType<typeof createServer>;
let pageUrl = '';
// A stand-in browser: records the URL it was asked to open, and fetches it like a browser would.
const browser = join(dir, 'browser.mjs');
beforeAll(async () => {
  http = await listen(httpEntry(app));
  page = createServer((_req, res) => {
    hits++;
    res.end('signed in');
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}/signin`;
  writeFileSync(browser, `#!${node}\nawait fetch(process.argv[2]);\n`, { mode: 0o755 });
});
afterAll(async () => {
  await http.close();
  page.close();
});

describe('elicit host', async () => {
  it('against the conformance server over HTTP, on both eras', async () => {
    for (const era of ['legacy', 'modern']) {
      const r = await elicit([
        http.url.href,
        '--era',
        era,
        '--call',
        'test_elicitation',
        '--args',
        '{"message":"Who?"}',
        '--answers',
        answers({
          answers: [{ action: 'accept', content: { username: 'ann', email: 'ann@example.com' } }],
        }),
      ]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`${era} era`);
      expect(r.stdout).toContain('elicit-conformance asks: Who?');
      expect(r.stdout).toContain(
        '◀ Elicitation completed: action=accept, content={"username":"ann","email":"ann@example.com"}',
      );
    }
  });
  it('lists tools without calling any', async () => {
    const r = await elicit([http.url.href, '--answers', answers({})]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('tool test_elicitation_sep1330_enums');
  });
  it('against a plain SDK v1 server over stdio', async () => {
    const r = await elicit([
      '--call',
      'book',
      '--args',
      '{"restaurant":"Nopi"}',
      '--answers',
      answers({ answers: [{ action: 'accept', content: { name: 'Ada' } }] }),
      '--',
      node,
      'test/fixtures/v1-server.ts',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('v1-fixture asks: Details for Nopi?');
    expect(r.stdout).toContain('◀ booked 2 for Ada at Nopi');
  });
  it('a -32042 URL step: consent, open, wait for completion, retry', async () => {
    hits = 0;
    const r = await elicit(
      [
        '--call',
        'calendar',
        '--answers',
        answers({ urls: 'open' }),
        '--',
        node,
        'test/fixtures/v1-server.ts',
        pageUrl,
      ],
      { ELICIT_BROWSER: browser },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('v1-fixture wants you to open a page: Sign in to your calendar');
    expect(r.stdout).toContain('◀ 3 meetings today (after 1 sign-in)');
    // The stand-in browser is a detached process: its request may land after the host exits.
    await until(() => hits === 1);
    expect(hits).toBe(1);
  });
  it('declining the URL step makes no request and fails the call', async () => {
    hits = 0;
    const r = await elicit(
      [
        '--call',
        'calendar',
        '--answers',
        answers({ urls: 'decline' }),
        '--',
        node,
        'test/fixtures/v1-server.ts',
        pageUrl,
      ],
      { ELICIT_BROWSER: browser },
    );
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain('→ decline');
    expect(hits).toBe(0);
  });
  it('stops a server that asks for the same page again', async () => {
    const r = await elicit(
      [
        '--call',
        'calendar',
        '--answers',
        answers({ urls: 'open' }),
        '--',
        node,
        'test/fixtures/v1-server.ts',
        pageUrl,
        'loop',
      ],
      { ELICIT_BROWSER: browser },
    );
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain(
      'asked again for the same page(s) after they completed; stopped to avoid a loop',
    );
  });
});
