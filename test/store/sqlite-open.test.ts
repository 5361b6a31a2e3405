/**
 * Processes that open one new SQLite file at the same moment (replicas starting together) all
 * get a working store: the first to switch the file to WAL holds a lock the others wait for.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/store/index.ts';

/** How far ahead the processes are told to open, so that all have started by then. */
const START_AHEAD_MS = 1500;

function open(path: string, at: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['test/fixtures/sqlite-open.ts', path, String(at)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('close', () => resolve(out.trim()));
  });
}

describe('SQLite store opened by several processes at once', () => {
  it('every process opens the new file and writes to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'elicit-sqlite-open-'));
    for (let round = 0; round < 3; round++) {
      const path = join(dir, `race-${round}.db`);
      const at = Date.now() + START_AHEAD_MS;
      const outs = await Promise.all(Array.from({ length: 6 }, () => open(path, at)));
      expect(outs).toEqual(Array(6).fill('ok'));
      const store = await sqliteStore({ path });
      expect((await store.get('missing')) ?? null).toBeNull();
      await store.close();
    }
  });
});

describe('SQLite store opened while another connection writes', () => {
  it('waits for the lock to switch the file to WAL instead of failing at once', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const path = join(mkdtempSync(join(tmpdir(), 'elicit-sqlite-lock-')), 'held.db');
    // A file still in rollback mode (as a new one is) with a write under way: SQLite does not
    // call the busy handler for the switch's lock, so only the store's own retry waits for it.
    const holder = new DatabaseSync(path);
    holder.exec('CREATE TABLE other (x)');
    holder.exec('BEGIN IMMEDIATE');
    holder.exec('INSERT INTO other VALUES (1)');
    const heldMs = 300;
    setTimeout(() => holder.exec('COMMIT'), heldMs);
    const started = Date.now();
    const store = await sqliteStore({ path });
    expect(Date.now() - started).toBeGreaterThanOrEqual(heldMs - 20);
    expect(await store.create('k', 1, { ttlMs: 60_000 })).toBe(true);
    await store.close();
    holder.close();
  });
});

describe('SQLite store schema', () => {
  it('a file of the first shape (tags without expiry) is migrated: records, tags and counts kept', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const path = join(mkdtempSync(join(tmpdir(), 'elicit-sqlite-v1-')), 'v1.db');
    const old = new DatabaseSync(path);
    const at = Date.now() + 60_000;
    old.exec(`
      CREATE TABLE elicit_records (key TEXT PRIMARY KEY, value TEXT NOT NULL, version INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE elicit_tags (tag TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tag, key)) WITHOUT ROWID;
      INSERT INTO elicit_records VALUES ('a', '{"x":1}', 1, ${at}), ('b', '2', 3, ${at}), ('gone', '3', 1, 1);
      INSERT INTO elicit_tags VALUES ('t', 'a'), ('t', 'b'), ('t', 'gone'), ('t', 'orphan');
    `);
    old.close();
    const store = await sqliteStore({ path });
    expect((await store.get('a'))?.value).toEqual({ x: 1 });
    expect((await store.get('b'))?.version).toBe(3);
    expect((await store.findByTag('t')).sort()).toEqual(['a', 'b']);
    expect(await store.countByTag('t')).toBe(2);
    expect(await store.createCapped('c', 1, { ttlMs: 60_000 }, { tag: 't', max: 3 })).toBe(
      'created',
    );
    expect(await store.createCapped('d', 1, { ttlMs: 60_000 }, { tag: 't', max: 3 })).toBe('full');
    await store.close();
    const again = await sqliteStore({ path });
    expect(await again.countByTag('t')).toBe(3);
    await again.close();
  });
});
