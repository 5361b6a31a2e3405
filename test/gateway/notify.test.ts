/**
 * `elicit gateway --notify`: when a question waits in the inbox, the command runs with the
 * server, tool and message as its last arguments and a one-time link minted for the question's
 * principal in ELICIT_INBOX_LINK. The link signs a browser in once (a second use is refused),
 * and the question it lists is answered through it: the host's call completes.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'elicit-notify-'));
const record = join(dir, 'notified.jsonl');
let client: Client | undefined;

afterAll(async () => {
  await client?.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (bounded) until the notify command has written its line. */
async function notified(): Promise<{ args: string[]; link?: string; principal?: string }> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (existsSync(record)) {
      const line = readFileSync(record, 'utf8').split('\n')[0] ?? '';
      if (line.endsWith('}')) return JSON.parse(line);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the --notify command never ran');
}

describe('elicit gateway --notify', () => {
  it('runs the command with a one-time link for the question’s principal, and that link answers it', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(root, 'bin', 'elicit.js'),
        'gateway',
        '--notify',
        `${process.execPath} ${join(root, 'test', 'fixtures', 'notify-record.ts')} ${record}`,
        '--',
        process.execPath,
        join(root, 'test', 'fixtures', 'gateway-asker.ts'),
      ],
      stderr: 'pipe',
    });
    // A host that declares no elicitation: every question goes to the inbox.
    client = new Client({ name: 'cli-host', version: '1' }, { capabilities: {} });
    await client.connect(transport);
    const call = client.callTool({ name: 'signup', arguments: {} });

    const seen = await notified();
    expect(seen.args).toEqual(['asker', 'signup', 'Sign up']);
    expect(seen.principal).toBe('local');
    const link = new URL(seen.link ?? '');
    expect(link.hostname).toBe('127.0.0.1');

    // The link signs one browser in, once.
    const signIn = await fetch(link, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(403);

    const page = await (await fetch(new URL('/inbox', link), { headers: { cookie } })).text();
    const csrf = /<meta name="?csrf"? content="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(csrf).not.toBe('');
    const questions = (await (
      await fetch(new URL('/inbox/questions', link), { headers: { cookie } })
    ).json()) as { id: string; tool: string }[];
    expect(questions.map((q) => q.tool)).toEqual(['signup']);

    const answered = await fetch(new URL('/inbox/answer', link), {
      method: 'POST',
      headers: {
        cookie,
        origin: link.origin,
        'content-type': 'application/json',
        'x-elicit-csrf': csrf,
      },
      body: JSON.stringify({
        id: questions[0]?.id,
        action: 'accept',
        content: { name: 'Ada', api_token: 'tok-12345' },
      }),
    });
    expect(answered.status).toBeLessThan(300);
    const result = (await call) as { content: { text: string }[] };
    expect(result.content[0]?.text).toBe('signed up Ada (token of 9 characters)');
  }, 90_000);
});
