/**
 * SQLite store on `node:sqlite` (built into Node ≥ 22, no native addon): the embedded default.
 * A file path, WAL mode, created on first use. Every operation is one statement or one
 * immediate transaction, so it is atomic across processes sharing the file.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { checkKey, checkTtl, type Json, type Store, type Stored } from './types.ts';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  readonly path: string;
  readonly now?: () => number;
}

export async function sqliteStore(options: SqliteOptions): Promise<Store> {
  const { DatabaseSync: Database } = await import('node:sqlite');
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db: DatabaseSync = new Database(options.path);
  const now = options.now ?? Date.now;
  // The busy timeout first: switching to WAL takes a lock, and a second process opening the
  // same file at that moment must wait for it rather than fail at once.
  db.exec(`
    PRAGMA busy_timeout = 5000;
    PRAGMA journal_mode = WAL;
    CREATE TABLE IF NOT EXISTS elicit_records (key TEXT PRIMARY KEY, value TEXT NOT NULL, version INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS elicit_tags (tag TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tag, key)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS elicit_records_expiry ON elicit_records (expires_at);
  `);
  const q = (sql: string): StatementSync => db.prepare(sql);
  const purgeOne = q('DELETE FROM elicit_records WHERE key = ? AND expires_at <= ?');
  const insert = q(
    'INSERT INTO elicit_records (key, value, version, expires_at) VALUES (?, ?, 1, ?) ON CONFLICT(key) DO NOTHING',
  );
  const tagInsert = q('INSERT OR IGNORE INTO elicit_tags (tag, key) VALUES (?, ?)');
  const select = q(
    'SELECT value, version, expires_at FROM elicit_records WHERE key = ? AND expires_at > ?',
  );
  const cas = q(
    'UPDATE elicit_records SET value = ?, version = version + 1, expires_at = COALESCE(?, expires_at) WHERE key = ? AND version = ? AND expires_at > ?',
  );
  const takeRow = q(
    'DELETE FROM elicit_records WHERE key = ? AND expires_at > ? RETURNING value, version, expires_at',
  );
  const del = q('DELETE FROM elicit_records WHERE key = ?');
  const tagDel = q('DELETE FROM elicit_tags WHERE key = ?');
  const byTag = q(
    'SELECT t.key FROM elicit_tags t JOIN elicit_records r ON r.key = t.key WHERE t.tag = ? AND r.expires_at > ?',
  );
  const sweep = q('DELETE FROM elicit_records WHERE expires_at <= ?');
  const sweepTags = q('DELETE FROM elicit_tags WHERE key NOT IN (SELECT key FROM elicit_records)');
  const row = <T extends Json>(r: unknown): Stored<T> | undefined => {
    if (r === undefined) return undefined;
    const x = r as { value: string; version: number; expires_at: number };
    return {
      value: JSON.parse(x.value) as T,
      version: Number(x.version),
      expiresAt: Number(x.expires_at),
    };
  };
  const tx = <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      db.exec('COMMIT');
      return out;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };
  let writes = 0;
  const maybeSweep = () => {
    if (++writes % 1000 === 0) {
      sweep.run(now());
      sweepTags.run();
    }
  };
  return {
    async create(key, value, opts) {
      checkKey(key);
      checkTtl(opts.ttlMs);
      const t = now();
      const created = tx(() => {
        purgeOne.run(key, t);
        const changes = Number(insert.run(key, JSON.stringify(value), t + opts.ttlMs).changes);
        if (changes === 1) {
          tagDel.run(key);
          for (const tag of opts.tags ?? []) tagInsert.run(tag, key);
        }
        return changes === 1;
      });
      maybeSweep();
      return created;
    },
    async get(key) {
      return row(select.get(key, now()));
    },
    async update(key, version, value, opts) {
      if (opts?.ttlMs !== undefined) checkTtl(opts.ttlMs);
      const t = now();
      return (
        Number(
          cas.run(
            JSON.stringify(value),
            opts?.ttlMs === undefined ? null : t + opts.ttlMs,
            key,
            version,
            t,
          ).changes,
        ) === 1
      );
    },
    async take(key) {
      const r = row(takeRow.get(key, now()));
      if (r !== undefined) tagDel.run(key);
      return r as never;
    },
    async delete(key) {
      tx(() => {
        del.run(key);
        tagDel.run(key);
      });
    },
    async findByTag(tag) {
      return byTag.all(tag, now()).map((r) => String((r as { key: string }).key));
    },
    async close() {
      db.close();
    },
  };
}
