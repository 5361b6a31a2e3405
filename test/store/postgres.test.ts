/**
 * What only PostgreSQL has to show: the schema is versioned and migrated once by replicas
 * starting together; a lost connection is a StoreError and the store works again when the
 * database is back, without a restart; the completion bus carries events between replicas over
 * LISTEN/NOTIFY and listens again after its connection is cut. The database is the real server
 * on 127.0.0.1:5432, reached through a TCP relay of the test's own to cut it.
 */
import { createServer, type Server, type Socket, connect as tcp } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type CompletionEvent, postgresBus } from '../../src/connect/completion.ts';
import { ELICIT_STORE_UNAVAILABLE } from '../../src/kernel/error-codes.ts';
import { postgresStore, StoreError } from '../../src/store/index.ts';
import { dropSchema, POSTGRES_URL, uniqueSchema } from '../support/postgres.ts';

const schemas: string[] = [];
const fresh = (name: string) => {
  const s = uniqueSchema(name);
  schemas.push(s);
  return s;
};
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

/** A TCP relay to the database that the test can cut (every connection) and bring back. */
async function relay() {
  const target = new URL(POSTGRES_URL);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      const relayServer = createServer((inbound) => {
        const outbound = tcp(Number(target.port || 5432), target.hostname);
        sockets.add(inbound).add(outbound);
        inbound.pipe(outbound).pipe(inbound);
        const drop = () => {
          inbound.destroy();
          outbound.destroy();
        };
        inbound.on('error', drop).on('close', drop);
        outbound.on('error', drop).on('close', drop);
      });
      server = relayServer;
      relayServer.listen(port, '127.0.0.1', () => {
        port = (relayServer.address() as { port: number }).port;
        resolve();
      });
    });
  await open();
  const url = new URL(POSTGRES_URL);
  url.port = String(port);
  return {
    url: url.toString(),
    async cut() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise((r) => server?.close(r));
    },
    open,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server?.close(r));
    },
  };
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

describe('PostgreSQL store', () => {
  it('replicas opening one new schema together migrate it once and share every record', async () => {
    const schema = fresh('pg_open');
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => postgresStore({ url: POSTGRES_URL, schema })),
    );
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    const rows = (await client.query(`SELECT version FROM ${schema}.elicit_schema`)).rows;
    await client.end();
    expect(rows).toEqual([{ version: 1 }]);
    const [a, b] = stores as [(typeof stores)[0], (typeof stores)[0]];
    expect(await a.create('shared', { n: 1 }, { ttlMs: 60_000 })).toBe(true);
    expect((await b.get('shared'))?.value).toEqual({ n: 1 });
    expect(await b.update('shared', 1, { n: 2 })).toBe(true);
    expect((await a.take('shared'))?.value).toEqual({ n: 2 });
    for (const s of stores) await s.close();
    // Opening again finds the schema at its version and changes nothing.
    const again = await postgresStore({ url: POSTGRES_URL, schema });
    expect(await again.countByTag('none')).toBe(0);
    await again.close();
  });

  it('a cut connection is a StoreError (ELICIT_STORE_UNAVAILABLE, no driver text); back without a restart', async () => {
    const r = await relay();
    const store = await postgresStore({
      url: r.url,
      schema: fresh('pg_cut'),
      pg: { connectionTimeoutMillis: 1000 },
    });
    expect(await store.create('before', 1, { ttlMs: 60_000 })).toBe(true);
    await r.cut();
    const error = await store.get('before').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe(ELICIT_STORE_UNAVAILABLE);
    expect((error as StoreError).message).toMatch(/PostgreSQL store could not read a record/);
    expect((error as StoreError).message).not.toMatch(/ECONNREFUSED|terminat|socket/i);
    await expect(store.create('during', 1, { ttlMs: 60_000 })).rejects.toBeInstanceOf(StoreError);
    await r.open();
    await eventually(async () => (await store.get('before'))?.value === 1, 'store back');
    expect(await store.create('after', 2, { ttlMs: 60_000 })).toBe(true);
    await store.close();
    await r.close();
  });
});

describe('PostgreSQL completion bus', () => {
  it('carries events between replicas, and listens again after its connection is cut', async () => {
    const channel = `elicit_test_bus_${process.pid}_${Date.now().toString(36)}`;
    const r = await relay();
    const warnings: string[] = [];
    const listening = await postgresBus({
      url: r.url,
      channel,
      onWarning: (w) => void warnings.push(w.code),
    });
    const publishing = await postgresBus({ url: POSTGRES_URL, channel });
    const heard: CompletionEvent[] = [];
    listening.subscribe((e) => heard.push(e));
    await publishing.publish({ id: 'one', status: 'complete' });
    await eventually(async () => heard.length === 1, 'first event');
    expect(heard[0]).toEqual({ id: 'one', status: 'complete' });
    await r.cut();
    await eventually(async () => warnings.length === 1, 'the loss told');
    expect(warnings).toEqual([ELICIT_STORE_UNAVAILABLE]);
    await r.open();
    // Published until heard: the listener is back within a few of its quarter-second retries.
    await eventually(async () => {
      await publishing.publish({ id: 'two', status: 'declined' });
      await new Promise((res) => setTimeout(res, 100));
      return heard.some((e) => e.id === 'two');
    }, 'listening again');
    expect(warnings).toHaveLength(1);
    await listening.close();
    await publishing.close();
    await r.close();
  });

  it('refuses a channel name that is not a plain identifier', async () => {
    await expect(postgresBus({ channel: 'x; DROP TABLE y' })).rejects.toThrow(
      /channel must be 1-63 lowercase letters/,
    );
  });
});
