/**
 * Two server processes sharing one Redis (or one PostgreSQL and nothing else) and one keyring
 * behind a round-robin proxy. The connect pages land on either replica; a 2025-11-25 client
 * still gets its completion (routed through Redis pub/sub or PostgreSQL LISTEN/NOTIFY to the
 * replica holding its session) and a 2026-07-28 retry completes wherever it
 * lands. Bounded: 200 flows in all, none lost.
 */
import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachElicitation,
  type ClientEvent,
  type Renderer,
  scriptedRenderer,
} from '../../src/client/index.ts';
import { dropSchema, uniqueSchema } from '../support/postgres.ts';
import { freePort, startProcess, stop } from '../support/processes.ts';
import { startProxy } from '../support/proxy.ts';

let replicas: ChildProcess[] = [];
let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
let base = '';
const schema = uniqueSchema('replicas');

async function start(storeArg: string) {
  const ports = [await freePort(), await freePort()];
  const proxyPort = await freePort();
  base = `http://127.0.0.1:${proxyPort}`;
  replicas = await Promise.all(
    ports.map((p) => startProcess('test/fixtures/replica.ts', [String(p), storeArg, base])),
  );
  proxy = await startProxy(ports, proxyPort);
}
async function stopAll() {
  await proxy?.close();
  proxy = undefined;
  for (const r of replicas) await stop(r);
  replicas = [];
}
afterAll(async () => {
  await stopAll();
  await dropSchema(schema);
});

/** A person's browser, without a browser: cookies kept by hand, forms posted like a page would. */
function fakeBrowser() {
  let cookie = '';
  const keep = (res: Response) => {
    const set = res.headers.get('set-cookie');
    if (set !== null) cookie = set.split(';')[0] as string;
  };
  const headers = () => ({ cookie, origin: base, 'sec-fetch-site': 'same-origin' });
  return async (link: string, value: string) => {
    let res = await fetch(link, { headers: headers(), redirect: 'manual' });
    if (res.status === 303) {
      const next =
        new URL(res.headers.get('location') as string, base).searchParams.get('next') ?? '';
      res = await fetch(`${base}/elicit/login`, {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ next }),
        redirect: 'manual',
      });
      keep(res);
      res = await fetch(link, { headers: headers(), redirect: 'manual' });
    }
    const html = await res.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (csrf === undefined) throw new Error(`no secret form at ${link}: ${html.slice(0, 200)}`);
    const posted = await fetch(`${link}/secret`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: value, csrf }),
      redirect: 'manual',
    });
    const text = await posted.text();
    if (!text.includes('is saved')) throw new Error(`secret not saved: ${text.slice(0, 200)}`);
  };
}

async function clientFor(era: 'legacy' | 'modern', events: ClientEvent[]) {
  const browse = fakeBrowser();
  let n = 0;
  const renderer: Renderer = {
    ...scriptedRenderer(),
    async url(request) {
      await browse(request.analysis.href as string, `value-${++n}`);
      return { action: 'opened' };
    },
    notice: (e) => void events.push(e),
  };
  const client = new Client({ name: 'c', version: '1' });
  const elicit = attachElicitation(client, { renderer, rateLimit: false });
  client.setVersionNegotiation({ mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return { client, elicit };
}

describe.each([
  ['redis', `redis:elicit-replicas-${process.pid}-${Date.now()}:`],
  ['postgres', `postgres:${schema}`],
])('replicas on %s', (_name, storeArg) => {
  beforeAll(() => start(storeArg), 60_000);
  afterAll(() => stopAll());
  describe.each(['legacy', 'modern'] as const)('behind a round-robin proxy (%s)', (era) => {
    it('100 flows complete, none lost; pages land on both replicas', async () => {
      const events: ClientEvent[] = [];
      const { client, elicit } = await clientFor(era, events);
      const hits = () => proxy?.hits ?? [];
      const before = [...hits()];
      for (let i = 1; i <= 100; i++) {
        const r = await elicit.callTool({ name: 'set_key', arguments: {} }, { timeout: 30_000 });
        expect((r.content as { text: string }[])[0]?.text).toBe(`saved:value-${i}`);
      }
      expect(hits().every((h, i) => h - (before[i] ?? 0) > 50)).toBe(true);
      if (era === 'legacy') {
        // The completion notification reached this client every time, from whichever replica.
        expect(events.filter((e) => e.type === 'url_completed')).toHaveLength(100);
      }
      await client.close();
    }, 120_000);
  });
});
