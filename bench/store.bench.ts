/**
 * Stores and connect pages: a record's life (create, get, complete, delete) per driver beside the raw driver doing
 * the same plain operations in the same run, memory per pending record, connect-page requests/s.
 */

import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { getRequestListener } from '@hono/node-server';
import { Redis } from 'ioredis';
import { createConnectApp } from '../src/connect/app.ts';
import { memoryBus } from '../src/connect/completion.ts';
import { devLogin } from '../src/connect/login.ts';
import { UrlRecords } from '../src/connect/records.ts';
import { createVault } from '../src/connect/vault.ts';
import { generateKeySecret } from '../src/server/seal.ts';
import { memoryStore, redisStore, type Store, sqliteStore } from '../src/store/index.ts';
import { abba, heapAfterGc, type Row, throughputRow } from './harness.ts';

const fields = {
  clientId: undefined,
  purpose: 'secret' as const,
  subject: 'api_key',
  label: 'API key',
  description: undefined,
  origin: undefined,
};

/**
 * One record's life through elicit's records on `store`: created, read, completed, then deleted
 * (as its expiry would), so the store stays the same size however long the case runs.
 */
function ours(store: Store): () => Promise<unknown> {
  const records = new UrlRecords(store);
  return async () => {
    const r = await records.create({ ...fields, principal: 'iss|alice' });
    await records.get(r.id);
    await records.finish(r.id, 'complete');
    await store.delete(`url:${r.id}`);
  };
}

function rawMemory(): () => Promise<unknown> {
  const map = new Map<string, string>();
  let n = 0;
  return async () => {
    const key = `url:${++n}`;
    map.set(key, JSON.stringify({ ...fields, principal: 'iss|alice', status: 'pending' }));
    const got = JSON.parse(map.get(key) as string);
    map.set(key, JSON.stringify({ ...got, status: 'complete' }));
    map.delete(key);
  };
}

function rawSqlite(path: string): { op: () => Promise<unknown>; close(): void } {
  const db = new DatabaseSync(path);
  db.exec(
    'PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS raw (key TEXT PRIMARY KEY, value TEXT, version INTEGER, expires_at INTEGER) WITHOUT ROWID',
  );
  const ins = db.prepare('INSERT INTO raw VALUES (?, ?, 1, ?)');
  const sel = db.prepare('SELECT value, version FROM raw WHERE key = ?');
  const upd = db.prepare(
    'UPDATE raw SET value = ?, version = version + 1 WHERE key = ? AND version = ?',
  );
  const del = db.prepare('DELETE FROM raw WHERE key = ?');
  let n = 0;
  const op = async () => {
    const key = `url:${++n}`;
    ins.run(
      key,
      JSON.stringify({ ...fields, principal: 'iss|alice', status: 'pending' }),
      Date.now() + 60_000,
    );
    const row = sel.get(key) as { value: string; version: number };
    upd.run(JSON.stringify({ ...JSON.parse(row.value), status: 'complete' }), key, row.version);
    del.run(key);
  };
  return { op, close: () => db.close() };
}

function rawRedis(prefix: string): { op: () => Promise<unknown>; close(): Promise<unknown> } {
  const redis = new Redis('redis://127.0.0.1:6379');
  let n = 0;
  const op = async () => {
    const key = `${prefix}raw:${++n}`;
    await redis.set(
      key,
      JSON.stringify({ ...fields, principal: 'iss|alice', status: 'pending' }),
      'PX',
      60_000,
      'NX',
    );
    const got = JSON.parse((await redis.get(key)) as string);
    await redis.set(key, JSON.stringify({ ...got, status: 'complete' }), 'KEEPTTL');
    await redis.del(key);
  };
  return { op, close: () => redis.quit() };
}

const GROUP = 'store: record create + get + complete + delete';
const RAW = 'raw driver, same operations';

export default async function run(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'elicit-bench-'));
  const prefix = `elicit-bench-${process.pid}:`;
  const rows: Row[] = [];
  // Interleaved with the raw driver (ABBA, repeated), as the server rows are.
  rows.push(throughputRow(GROUP, 'memory', await abba(ours(memoryStore()), rawMemory()), RAW, 0.5));
  const sqlite = await sqliteStore({ path: join(dir, 'ours.db') });
  const rawDb = rawSqlite(join(dir, 'raw.db'));
  rows.push(
    throughputRow(GROUP, 'sqlite (node:sqlite, WAL)', await abba(ours(sqlite), rawDb.op), RAW, 0.5),
  );
  rawDb.close();
  await sqlite.close();
  const redis = await redisStore({ prefix });
  const rawR = rawRedis(prefix);
  rows.push(throughputRow(GROUP, 'redis (ioredis)', await abba(ours(redis), rawR.op), RAW, 0.5));
  await rawR.close();
  await redis.close();

  // Memory per pending record in the memory driver.
  const heap = heapAfterGc;
  const counted = memoryStore();
  const records = new UrlRecords(counted);
  // A first batch settles the heap (and whatever earlier cases left behind); the second is measured.
  for (let i = 0; i < 20_000; i++)
    await records.create({ ...fields, principal: `iss|user-${i % 100}` });
  const before = heap();
  for (let i = 0; i < 20_000; i++)
    await records.create({ ...fields, principal: `iss|user-${i % 100}` });
  const per = (heap() - before) / 20_000;
  // Keep the store reachable until after the measurement.
  if ((await counted.findByTag('iss|user-0')).length < 0) throw new Error('unreachable');
  rows.push({
    group: 'store: memory driver',
    name: 'heap per pending URL record (20 000 records)',
    value: per,
    unit: 'B',
  });

  // Connect-page requests per second on loopback (a signed-in browser loading the secret form).
  const store = memoryStore();
  const recs = new UrlRecords(store);
  const http = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const app = createConnectApp({
    baseUrl: base,
    store,
    records: recs,
    vault: createVault(store, { keys: [{ id: 'v', secret: generateKeySecret() }] }),
    bus: memoryBus(),
    login: devLogin({ fixedPrincipal: 'p' }),
    providers: {},
  });
  http.on('request', getRequestListener(app.fetch));
  const login = await fetch(`${base}/elicit/login`, {
    method: 'POST',
    headers: {
      origin: base,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'next=',
    redirect: 'manual',
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const record = await recs.create({ ...fields, principal: 'p' });
  const link = app.link(record.id);
  let done = 0;
  const end = Date.now() + 2000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < end) {
        const res = await fetch(link, { headers: { cookie } });
        await res.text();
        done++;
      }
    }),
  );
  rows.push({
    group: 'connect pages',
    name: 'GET the secret page, signed in, 8 in flight (requests/s)',
    value: done / 2,
    unit: 'req/s',
  });
  http.closeAllConnections();
  http.close();
  return rows;
}
