/**
 * The four store drivers a suite runs against: memory, SQLite (a real file), Redis (the real
 * server on 127.0.0.1:6379) and PostgreSQL (the real server on 127.0.0.1:5432, a schema of the
 * suite's own, dropped afterwards); a missing server fails the run. Every store a factory opens
 * is closed after the file's tests.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import {
  memoryStore,
  postgresStore,
  redisStore,
  type Store,
  sqliteStore,
} from '../../src/store/index.ts';
import { dropSchema, POSTGRES_URL, uniqueSchema } from './postgres.ts';

export type Driver = [name: 'memory' | 'sqlite' | 'redis' | 'postgres', open: () => Promise<Store>];

/** Factories for each driver, on a SQLite file and Redis prefix of this suite's own (`name`). */
export function storeDrivers(name: string): Driver[] {
  const dir = mkdtempSync(join(tmpdir(), `elicit-${name}-`));
  const prefix = `elicit-test-${name}-${process.pid}-${Date.now()}:`;
  const schema = uniqueSchema(name);
  const opened: Store[] = [];
  afterAll(async () => {
    // A test may have closed one itself (a restart): closing again is not the point here.
    for (const s of opened) await s.close().catch(() => {});
    await dropSchema(schema);
  });
  const kept = async (store: Promise<Store>) => {
    const s = await store;
    opened.push(s);
    return s;
  };
  return [
    ['memory', () => kept(Promise.resolve(memoryStore()))],
    ['sqlite', () => kept(sqliteStore({ path: join(dir, `${name}.db`) }))],
    ['redis', () => kept(redisStore({ url: 'redis://127.0.0.1:6379', prefix }))],
    ['postgres', () => kept(postgresStore({ url: POSTGRES_URL, schema }))],
  ];
}
