/**
 * SQLite store on `node:sqlite` (built into Node ≥ 22, no native addon): the embedded default.
 * A file path, WAL mode, created on first use. Every operation is one statement or one
 * immediate transaction, so it is atomic across processes sharing the file.
 *
 * Every failure of SQLite (disk full, read-only file, locked past the busy timeout, I/O error) is
 * a StoreError with SQLite's own error as `cause`: ELICIT_STORE_FULL for a full disk or
 * database, ELICIT_STORE_UNAVAILABLE for the rest. A failed transaction is rolled back only if
 * SQLite has not already done so, so the rollback never hides the error that caused it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ELICIT_LIMIT_INVALID } from '../kernel/error-codes.ts';
import {
  checkKey,
  checkTtl,
  type Json,
  type Store,
  type Stored,
  StoreError,
  storeFailure,
} from './types.ts';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  readonly path: string;
  readonly now?: () => number;
  /**
   * Largest size of the database file in bytes (SQLite's `max_page_count`); a write past it
   * fails with ELICIT_STORE_FULL, as on a full disk. Default: no bound but the disk's.
   */
  readonly maxBytes?: number;
}

// SQLite's primary result codes (the low byte of an extended code).
const SQLITE_FULL = 13;

/** The result code node:sqlite puts on its errors (`errcode`), if any. */
const resultCode = (error: unknown): number | undefined => {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
};

/** Runs one store operation, turning what SQLite threw into a StoreError. */
function guard<T>(operation: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw storeFailure('SQLite', operation, error, resultCode(error) === SQLITE_FULL);
  }
}

export async function sqliteStore(options: SqliteOptions): Promise<Store> {
  const { DatabaseSync: Database } = await import('node:sqlite');
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const { maxBytes } = options;
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes <= 0))
    throw new StoreError(
      ELICIT_LIMIT_INVALID,
      `sqliteStore: maxBytes must be a positive whole number of bytes, got ${maxBytes}`,
    );
  const db: DatabaseSync = guard('open the database', () => new Database(options.path));
  const now = options.now ?? Date.now;
  // The busy timeout first: switching to WAL takes a lock, and a second process opening the
  // same file at that moment must wait for it rather than fail at once.
  guard('open the database', () =>
    db.exec(`
    PRAGMA busy_timeout = 5000;
    PRAGMA journal_mode = WAL;
    CREATE TABLE IF NOT EXISTS elicit_records (key TEXT PRIMARY KEY, value TEXT NOT NULL, version INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS elicit_tags (tag TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tag, key)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS elicit_records_expiry ON elicit_records (expires_at);
  `),
  );
  if (maxBytes !== undefined) {
    const page = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / page))}`);
  }
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
      // On a full disk (and some I/O errors) SQLite has already rolled back: a ROLLBACK then
      // fails with "no transaction is active", which must not replace the error that matters.
      if (db.isTransaction) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // The original error is the one to report.
        }
      }
      throw error;
    }
  };
  let writes = 0;
  const maybeSweep = () => {
    if (++writes % 1000 !== 0) return;
    // Housekeeping after a write that succeeded: its failure must not make that write look
    // failed; expired rows are never read, and the next sweep tries again.
    try {
      sweep.run(now());
      sweepTags.run();
    } catch {}
  };
  return {
    async create(key, value, opts) {
      checkKey(key);
      checkTtl(opts.ttlMs);
      const t = now();
      const created = guard('create a record', () =>
        tx(() => {
          purgeOne.run(key, t);
          const changes = Number(insert.run(key, JSON.stringify(value), t + opts.ttlMs).changes);
          if (changes === 1) {
            tagDel.run(key);
            for (const tag of opts.tags ?? []) tagInsert.run(tag, key);
          }
          return changes === 1;
        }),
      );
      maybeSweep();
      return created;
    },
    async get(key) {
      return guard('read a record', () => row(select.get(key, now())));
    },
    async update(key, version, value, opts) {
      if (opts?.ttlMs !== undefined) checkTtl(opts.ttlMs);
      const t = now();
      return guard(
        'update a record',
        () =>
          Number(
            cas.run(
              JSON.stringify(value),
              opts?.ttlMs === undefined ? null : t + opts.ttlMs,
              key,
              version,
              t,
            ).changes,
          ) === 1,
      );
    },
    async take(key) {
      // One transaction: a record is never taken without its tags going too, nor lost to a
      // failure between the two.
      return guard('take a record', () =>
        tx(() => {
          const r = row(takeRow.get(key, now()));
          if (r !== undefined) tagDel.run(key);
          return r as never;
        }),
      );
    },
    async delete(key) {
      guard('delete a record', () =>
        tx(() => {
          del.run(key);
          tagDel.run(key);
        }),
      );
    },
    async findByTag(tag) {
      return guard('find records by tag', () =>
        byTag.all(tag, now()).map((r) => String((r as { key: string }).key)),
      );
    },
    async close() {
      db.close();
    },
  };
}
