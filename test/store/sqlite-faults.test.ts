/**
 * SQLite failing under the store: a full disk (a real size-limited tmpfs where this process may
 * mount one, and always a database at its `maxBytes`), a read-only file and a lock held past the
 * busy timeout. Each failure is a StoreError with SQLite's own error as `cause`, never the
 * "no transaction is active" of a rollback SQLite already made, and nothing written before it
 * is lost.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Store, StoreError, sqliteStore } from '../../src/store/index.ts';

const filler = (n: number) => ({ text: 'x'.repeat(n) });

/** Writes records until the store refuses one; returns the keys written and the refusal. */
async function fill(store: Store, tag: string): Promise<{ kept: string[]; error: unknown }> {
  const kept: string[] = [];
  for (let i = 0; i < 100_000; i++) {
    const key = `${tag}-${i}`;
    try {
      await store.create(key, filler(2000), { ttlMs: 600_000, tags: [tag] });
      kept.push(key);
    } catch (error) {
      return { kept, error };
    }
  }
  throw new Error('the store never filled up');
}

/** SQLite's own error under a StoreError, as node:sqlite reports it. */
const sqliteCause = (error: unknown) =>
  (error as { cause?: { errcode?: number; message?: string } }).cause;

async function expectFullAndIntact(store: Store, tag: string): Promise<string[]> {
  const { kept, error } = await fill(store, tag);
  expect(kept.length).toBeGreaterThan(3);
  expect(error).toBeInstanceOf(StoreError);
  expect((error as StoreError).code).toBe('ELICIT_STORE_FULL');
  expect((error as StoreError).message).not.toMatch(/rollback|transaction|disk is full/i);
  const cause = sqliteCause(error);
  expect((cause?.errcode ?? 0) & 0xff).toBe(13); // SQLITE_FULL
  expect(cause?.message).toMatch(/full/);
  // Everything written before the refusal is there, whole.
  for (const key of kept) expect((await store.get(key))?.value).toEqual(filler(2000));
  expect((await store.findByTag(tag)).sort()).toEqual([...kept].sort());
  // Other writes on the full database fail the same way, never with a rollback's error.
  for (const attempt of [
    () => store.create(`${tag}-more`, filler(4000), { ttlMs: 600_000, tags: [tag] }),
    () => store.update(kept[0] as string, 1, filler(8000)),
  ]) {
    const e = await attempt().then(
      () => undefined,
      (x: unknown) => x,
    );
    if (e !== undefined) {
      expect((e as StoreError).code).toBe('ELICIT_STORE_FULL');
      expect((sqliteCause(e)?.errcode ?? 0) & 0xff).toBe(13);
    }
  }
  return kept;
}

/**
 * A fresh tmpfs of `size`, or undefined (the test skipped) where this process may not mount one;
 * in CI, where the suite runs as root, not being able to is a failure.
 */
function tmpfs(size: string, ctx: { skip: () => void }): string | undefined {
  const mnt = mkdtempSync(join(tmpdir(), 'elicit-sqlite-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt], {
      stdio: 'ignore',
    });
    return mnt;
  } catch (error) {
    rmSync(mnt, { recursive: true, force: true });
    if (process.env.CI === 'true') throw error;
    // Only root may mount: the maxBytes case covers SQLITE_FULL everywhere else.
    ctx.skip();
    return undefined;
  }
}

function unmount(mnt: string): void {
  execFileSync('umount', ['-l', mnt]);
  rmSync(mnt, { recursive: true, force: true });
}

describe('SQLite store: failures keep their cause', () => {
  const dir = mkdtempSync(join(tmpdir(), 'elicit-sqlite-faults-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a database at maxBytes refuses with ELICIT_STORE_FULL and loses nothing', async () => {
    const store = await sqliteStore({ path: join(dir, 'capped.db'), maxBytes: 256 * 1024 });
    const kept = await expectFullAndIntact(store, 'capped');
    // Room made by deleting is room to write again.
    for (const key of kept.slice(0, 20)) await store.delete(key);
    expect(await store.create('capped-after', filler(10), { ttlMs: 60_000 })).toBe(true);
    await store.close();
  });

  it('a full disk (a size-limited tmpfs) refuses with ELICIT_STORE_FULL and loses nothing', async (ctx) => {
    const mnt = tmpfs('512k', ctx);
    if (mnt === undefined) return;
    try {
      // A file that takes space the store will want, to be freed later.
      writeFileSync(join(mnt, 'ballast'), Buffer.alloc(64 * 1024));
      const store = await sqliteStore({ path: join(mnt, 'full.db') });
      const kept = await expectFullAndIntact(store, 'disk');
      rmSync(join(mnt, 'ballast'));
      expect(await store.create('disk-after', filler(10), { ttlMs: 60_000 })).toBe(true);
      for (const key of kept) expect((await store.get(key))?.value).toEqual(filler(2000));
      await store.close();
    } finally {
      unmount(mnt);
    }
  });

  it('a read-only volume: ELICIT_STORE_UNAVAILABLE with SQLite’s error as cause', async (ctx) => {
    const mnt = tmpfs('4m', ctx);
    if (mnt === undefined) return;
    const ro = mkdtempSync(join(tmpdir(), 'elicit-sqlite-ro-'));
    try {
      const rw = await sqliteStore({ path: join(mnt, 'ro.db') });
      await rw.create('kept', { a: 1 }, { ttlMs: 60_000, tags: ['ro'] });
      // The same files through a read-only mount: what a volume remounted read-only gives.
      execFileSync('mount', ['--bind', mnt, ro]);
      execFileSync('mount', ['-o', 'remount,ro,bind', ro]);
      const opened = await sqliteStore({ path: join(ro, 'ro.db') }).catch((e: unknown) => e);
      const failures: unknown[] = [];
      if (opened instanceof Error) failures.push(opened);
      else {
        const store = opened as Store;
        for (const write of [
          () => store.create('new', 1, { ttlMs: 60_000, tags: ['ro'] }),
          () => store.update('kept', 1, { a: 2 }),
          () => store.take('kept'),
          () => store.delete('kept'),
        ])
          failures.push(
            await write().then(
              () => undefined,
              (x: unknown) => x,
            ),
          );
        await store.close();
      }
      for (const e of failures) {
        expect(e).toBeInstanceOf(StoreError);
        expect((e as StoreError).code).toBe('ELICIT_STORE_UNAVAILABLE');
        expect(sqliteCause(e)?.errcode).toBeTypeOf('number');
        expect(sqliteCause(e)?.message).not.toMatch(/no transaction is active/);
      }
      // The writable side never lost the record.
      expect((await rw.get('kept'))?.value).toEqual({ a: 1 });
      await rw.close();
    } finally {
      execFileSync('umount', ['-l', ro]);
      rmSync(ro, { recursive: true, force: true });
      unmount(mnt);
    }
  });

  it('a lock held past the busy timeout: ELICIT_STORE_UNAVAILABLE, the lock’s error as cause', async () => {
    const path = join(dir, 'locked.db');
    const store = await sqliteStore({ path });
    await store.create('before', 1, { ttlMs: 60_000 });
    const { DatabaseSync } = await import('node:sqlite');
    const holder = new DatabaseSync(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      const e = await store.create('blocked', 1, { ttlMs: 60_000 }).catch((x: unknown) => x);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4000); // waited its busy timeout
      expect(e).toBeInstanceOf(StoreError);
      expect((e as StoreError).code).toBe('ELICIT_STORE_UNAVAILABLE');
      expect((sqliteCause(e)?.errcode ?? 0) & 0xff).toBe(5); // SQLITE_BUSY
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(await store.create('blocked', 1, { ttlMs: 60_000 })).toBe(true);
    expect((await store.get('before'))?.value).toBe(1);
    await store.close();
  }, 20_000);
});
