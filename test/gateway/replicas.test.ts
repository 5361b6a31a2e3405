/**
 * Two `elicit gateway` processes share one inbox through one real Redis (`--store`, a key prefix
 * of this run's own): a question raised through replica A (a host that declares no elicitation)
 * is answered in the inbox page of replica B, in Chromium, and the call on A completes with that
 * answer. Then A is killed while a question of its waits: B's page says the question failed,
 * with ELICIT_GATEWAY_HOLDER_LOST, and an answer to it is refused with the same code.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';

const root = join(import.meta.dirname, '..', '..');
const prefix = `elicit-test-${randomUUID()}:`;

interface Replica {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** The one-time inbox link this replica printed. */
  readonly link: string;
}

/** A host (an SDK client without elicitation) that starts one gateway replica over stdio. */
async function replica(): Promise<Replica> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      join(root, 'bin', 'elicit.js'),
      'gateway',
      '--store',
      'redis://127.0.0.1:6379',
      '--store-prefix',
      prefix,
      '--',
      process.execPath,
      join(root, 'test', 'fixtures', 'gateway-asker.ts'),
    ],
    stderr: 'pipe',
  });
  let text = '';
  const link = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no inbox link in: ${text}`)), 30_000);
    transport.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /wait at (http:\/\/127\.0\.0\.1:\d+\/inbox\?t=[A-Za-z0-9_-]+)/.exec(text);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
  });
  const client = new Client({ name: 'cli-host', version: '1' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport, link: await link };
}

let a: Replica;
let b: Replica;
let browser: Browser;

beforeAll(async () => {
  [a, b] = await Promise.all([replica(), replica()]);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await a?.client.close().catch(() => {});
  await b?.client.close().catch(() => {});
  // This run's keys: questions, links, sessions and leases.
  const redis = new Redis('redis://127.0.0.1:6379');
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('gateway replicas sharing the inbox through Redis', () => {
  it('a question raised through A is answered in the inbox of B; the call on A completes; killing A fails its question on B', async () => {
    expect(new URL(a.link).port).not.toBe(new URL(b.link).port);
    const call = a.client.callTool({ name: 'signup', arguments: {} });
    const page = await browser.newPage();
    await page.goto(b.link);
    await page.waitForSelector('elicit-form >> input[name=name]', { timeout: 20_000 });
    expect(await page.textContent('h2')).toBe('asker · signup');
    await page.fill('elicit-form >> input[name=name]', 'Ada');
    await page.fill('elicit-form >> input[name=api_token]', 'tok-12345');
    await page.click('elicit-form >> [part=submit]');
    await page.click('elicit-form >> [part=submit]');
    expect(textOf(await call)).toBe('signed up Ada (token of 9 characters)');

    // A question of A waits; A is killed; B says why it can no longer be answered.
    const lost = a.client.callTool({ name: 'other', arguments: {} }).catch((e: unknown) => e);
    await page.waitForSelector('section:nth-of-type(2) elicit-form', { timeout: 20_000 });
    const id = await page.evaluate(async () => {
      const r = await fetch('/inbox/questions');
      const qs = (await r.json()) as { id: string; tool: string }[];
      return qs.find((q) => q.tool === 'other')?.id ?? '';
    });
    expect(id).not.toBe('');
    process.kill(a.transport.pid as number, 'SIGKILL');
    await lost;
    await page.waitForSelector('section[data-failed=ELICIT_GATEWAY_HOLDER_LOST]', {
      timeout: 30_000,
    });
    expect(await page.textContent('section:nth-of-type(2)')).toContain(
      'The gateway process that held this call stopped',
    );
    const refused = await page.evaluate(async (question) => {
      const csrf = document.querySelector<HTMLMetaElement>('meta[name=csrf]')?.content ?? '';
      const r = await fetch('/inbox/answer', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-elicit-csrf': csrf },
        body: JSON.stringify({ id: question, action: 'accept', content: { colour: 'red' } }),
      });
      return { status: r.status, body: (await r.json()) as { code: string } };
    }, id);
    expect(refused).toEqual({
      status: 410,
      body: expect.objectContaining({ code: 'ELICIT_GATEWAY_HOLDER_LOST' }),
    });
    await page.close();
  }, 120_000);
});
