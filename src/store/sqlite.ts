/**
 * SQLite store on `node:sqlite` (built into Node ≥ 22, no native addon): the embedded default.
 * A file path, WAL mode, created on first use. Every operation is one statement or one
 * immediate transaction, so it is atomic across processes sharing the file.
 *
 * Every failure of SQLite (disk full, read-only file, locked past the busy timeout, I/O error) is
 * a StoreError with SQLite's own error as `cause`: ELICIT_STORE_FULL for a full disk or
 * database, ELICIT_STORE_UNAVAILABLE for the rest. A failed transaction is rolled back only if
 * SQLite has not already done so, so the rollback never hides the error that caused it.
 *
 * Durability: a write resolves only once the write-ahead log holding it is on disk, as with
 * SQLite's `synchronous = FULL`, but the log is flushed by the store (group commit) instead of
 * inside each commit: SQLite runs with `synchronous = NORMAL` (in WAL mode always consistent,
 * only the flush moves), and the store then calls `fsync` on the log off the event loop. The
 * writes of one turn of the event loop share one flush, and writes that land while a flush is
 * under way share the next one, so the process is not blocked for the disk's flush on every
 * commit and concurrent writers pay for one flush together. A read in
 * this process of a key whose write is still being flushed waits for that flush, so it never
 * reports a write that a power loss could take back; another process sharing the file may see a
 * write up to one flush before it is durable (anything it writes after is flushed with it: the
 * log is one file).
 */
import { closeSync, fstatSync, fsync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ELICIT_LIMIT_INVALID } from '../kernel/error-codes.ts';
import {
  checkCap,
  checkKey,
  checkPage,
  checkTtl,
  type Json,
  type PutOptions,
  type Store,
  type Stored,
  StoreError,
  storeFailure,
  type TagCap,
} from './types.ts';

export interface SqliteStoreOptions {
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
const SQLITE_BUSY = 5;
const SQLITE_FULL = 13;

/** How long an operation waits for another connection's lock (SQLite's busy timeout). */
const BUSY_TIMEOUT_MS = 5000;
/** Pause between attempts to switch a file to WAL while another connection holds its lock. */
const WAL_RETRY_MS = 10;

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

/**
 * The schema's version, kept in `PRAGMA user_version`. 1 is the first shape (tags without an
 * expiry, counted by listing); 2 keeps each tag row's expiry and a live count per tag.
 */
const SCHEMA_VERSION = 2;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS elicit_records (key TEXT PRIMARY KEY, value TEXT NOT NULL, version INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS elicit_records_expiry ON elicit_records (expires_at);
  CREATE TABLE IF NOT EXISTS elicit_tags (tag TEXT NOT NULL, key TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (tag, key)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS elicit_tags_expiry ON elicit_tags (tag, expires_at);
  CREATE INDEX IF NOT EXISTS elicit_tags_key ON elicit_tags (key);
  CREATE TABLE IF NOT EXISTS elicit_tag_counts (tag TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
`;

/** Brings a file of any earlier version to SCHEMA_VERSION, in one transaction. */
function migrate(db: DatabaseSync): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = Number(
      (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
    );
    if (version < SCHEMA_VERSION) {
      const old = db
        .prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'elicit_tags'")
        .get();
      const hasExpiry =
        old !== undefined &&
        db
          .prepare('SELECT name FROM pragma_table_info(?)')
          .all('elicit_tags')
          .some((c) => (c as { name: string }).name === 'expires_at');
      // Version 1: tag rows took their expiry from a join; they now carry it, and are counted.
      if (old !== undefined && !hasExpiry)
        db.exec('ALTER TABLE elicit_tags RENAME TO elicit_tags_v1');
      db.exec(SCHEMA);
      if (old !== undefined && !hasExpiry) {
        db.exec(`
          INSERT OR IGNORE INTO elicit_tags (tag, key, expires_at)
            SELECT t.tag, t.key, r.expires_at FROM elicit_tags_v1 t JOIN elicit_records r ON r.key = t.key;
          DROP TABLE elicit_tags_v1;
          DELETE FROM elicit_tag_counts;
          INSERT INTO elicit_tag_counts (tag, n) SELECT tag, count(*) FROM elicit_tags GROUP BY tag;
        `);
      }
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

export async function sqliteStore(options: SqliteStoreOptions): Promise<Store> {
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
  guard('open the database', () => db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`));
  // Switching a new file to WAL writes its header from inside a read transaction, and SQLite
  // never calls the busy handler to upgrade a read to a write (two readers both waiting would
  // deadlock): a process opening the file while another switches it gets SQLITE_BUSY at once,
  // whatever the busy timeout. So the switch is retried here, bounded by the same timeout.
  const walDeadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      break;
    } catch (error) {
      if (resultCode(error) !== SQLITE_BUSY || Date.now() >= walDeadline)
        throw storeFailure('SQLite', 'open the database', error, false);
      await new Promise((resolve) => setTimeout(resolve, WAL_RETRY_MS));
    }
  }
  const wal = options.path !== ':memory:';
  // The log is flushed by `durable` below, after each write; a database in memory has none.
  if (wal) guard('open the database', () => db.exec('PRAGMA synchronous = NORMAL'));
  guard('open the database', () => migrate(db));
  if (maxBytes !== undefined) {
    const page = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / page))}`);
  }
  const q = (sql: string): StatementSync => db.prepare(sql);
  const purgeOne = q('DELETE FROM elicit_records WHERE key = ? AND expires_at <= ?');
  const insert = q(
    'INSERT INTO elicit_records (key, value, version, expires_at) VALUES (?, ?, 1, ?) ON CONFLICT(key) DO NOTHING',
  );
  const tagInsert = q('INSERT OR IGNORE INTO elicit_tags (tag, key, expires_at) VALUES (?, ?, ?)');
  const countUp = q(
    'INSERT INTO elicit_tag_counts (tag, n) VALUES (?, 1) ON CONFLICT(tag) DO UPDATE SET n = n + 1',
  );
  const countDown = q('UPDATE elicit_tag_counts SET n = n - ? WHERE tag = ?');
  const countOf = q('SELECT n FROM elicit_tag_counts WHERE tag = ?');
  const select = q(
    'SELECT value, version, expires_at FROM elicit_records WHERE key = ? AND expires_at > ?',
  );
  const cas = q(
    'UPDATE elicit_records SET value = ?, version = version + 1, expires_at = COALESCE(?, expires_at) WHERE key = ? AND version = ? AND expires_at > ?',
  );
  const retime = q('UPDATE elicit_tags SET expires_at = ? WHERE key = ?');
  const takeRow = q(
    'DELETE FROM elicit_records WHERE key = ? AND expires_at > ? RETURNING value, version, expires_at',
  );
  const del = q('DELETE FROM elicit_records WHERE key = ?');
  const tagDel = q('DELETE FROM elicit_tags WHERE key = ? RETURNING tag');
  const tagExpire = q('DELETE FROM elicit_tags WHERE tag = ? AND expires_at <= ?');
  const byTag = q('SELECT key FROM elicit_tags WHERE tag = ? AND expires_at > ?');
  const pageByTag = q(
    'SELECT key FROM elicit_tags WHERE tag = ? AND key > ? AND expires_at > ? ORDER BY key LIMIT ?',
  );
  const sweep = q('DELETE FROM elicit_records WHERE expires_at <= ?');
  const sweepTags = q('DELETE FROM elicit_tags WHERE expires_at <= ? RETURNING tag');
  const sweepCounts = q('DELETE FROM elicit_tag_counts WHERE n <= 0');
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
  /** Drops tag rows as returned by a DELETE … RETURNING tag, keeping each tag's count. */
  const uncount = (rows: unknown[]) => {
    if (rows.length === 0) return;
    const by = new Map<string, number>();
    for (const r of rows) {
      const tag = String((r as { tag: string }).tag);
      by.set(tag, (by.get(tag) ?? 0) + 1);
    }
    for (const [tag, n] of by) countDown.run(n, tag);
  };
  /** The live count of `tag` at `t`: its expired rows leave first (each once), then the counter. */
  const liveCount = (tag: string, t: number): number => {
    const gone = Number(tagExpire.run(tag, t).changes);
    if (gone > 0) countDown.run(gone, tag);
    const r = countOf.get(tag) as { n: number } | undefined;
    return r === undefined ? 0 : Number(r.n);
  };
  const put = (key: string, value: Json, opts: PutOptions, t: number, cap?: TagCap) => {
    if (Number(purgeOne.run(key, t).changes) === 1) uncount(tagDel.all(key));
    if (cap !== undefined && liveCount(cap.tag, t) >= cap.max) return 'full';
    const expiresAt = t + opts.ttlMs;
    if (Number(insert.run(key, JSON.stringify(value), expiresAt).changes) !== 1) return 'exists';
    const tags = new Set(opts.tags);
    if (cap !== undefined) tags.add(cap.tag);
    for (const tag of tags) {
      tagInsert.run(tag, key, expiresAt);
      countUp.run(tag);
    }
    return 'created';
  };
  let writes = 0;
  const maybeSweep = () => {
    if (++writes % 1000 !== 0) return;
    // Housekeeping after a write that succeeded: its failure must not make that write look
    // failed; expired rows are never read, and the next sweep tries again.
    const t = now();
    try {
      tx(() => {
        sweep.run(t);
        uncount(sweepTags.all(t));
        sweepCounts.run();
      });
    } catch {}
  };
  /**
   * Group commit: resolves once every write committed before the call is on disk. One flush
   * at a time, started once the current turn of the event loop is over, so the writes of one
   * turn share it; writes made while it runs wait for the next, which they all share.
   *
   * The log stays open for the flushes: this connection keeps it in place while it is open (a
   * log is removed only when the last connection to the file closes, and it is reset in place,
   * never replaced, while one is open). Should it have been unlinked all the same, it is opened
   * again by name; no log at all means everything is in the database already.
   */
  const walPath = `${options.path}-wal`;
  let log: number | undefined;
  const openLog = (): number | undefined => {
    if (log !== undefined) {
      if (fstatSync(log).nlink > 0) return log;
      closeSync(log);
      log = undefined;
    }
    try {
      log = openSync(walPath, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return log;
  };
  const flushLog = () =>
    new Promise<void>((resolve, reject) => {
      let fd: number | undefined;
      try {
        fd = openLog();
      } catch (error) {
        reject(storeFailure('SQLite', 'flush a write to disk', error));
        return;
      }
      if (fd === undefined) {
        resolve();
        return;
      }
      fsync(fd, (syncError) => {
        if (syncError === null) {
          resolve();
          return;
        }
        // The next flush opens the log afresh rather than trust a descriptor that failed.
        if (log === fd) {
          log = undefined;
          closeSync(fd);
        }
        reject(storeFailure('SQLite', 'flush a write to disk', syncError));
      });
    });
  let flushing: Promise<void> | undefined;
  let nextFlush: Promise<void> | undefined;
  const startFlush = (): Promise<void> => {
    const p = flushLog();
    flushing = p;
    const done = () => {
      if (flushing === p) flushing = undefined;
    };
    p.then(done, done);
    return p;
  };
  const turnOver = () => new Promise<void>((resolve) => setImmediate(resolve));
  const durable = (): Promise<void> => {
    if (!wal) return Promise.resolve();
    // The flush under way may have started before this write: wait for the next one.
    nextFlush ??= (flushing ?? turnOver())
      .catch(() => {})
      .then(() => {
        nextFlush = undefined;
        return startFlush();
      });
    return nextFlush;
  };
  /**
   * Keys written by this process whose flush is still under way. A read of one of them waits
   * for that flush, so this process never reports a write that a power loss could take back;
   * reads of other keys do not wait, and a write that follows such a read joins the next flush.
   */
  const unflushed = new Map<string, Promise<void>>();
  const flushOf = (key: string): Promise<void> => {
    const p = durable();
    unflushed.set(key, p);
    const done = () => {
      if (unflushed.get(key) === p) unflushed.delete(key);
    };
    p.then(done, done);
    return p;
  };
  /** Before a listing: every write of this process still being flushed (listings are rare). */
  const settled = async (): Promise<void> => {
    await (nextFlush ?? flushing);
  };
  const checked = (opts: PutOptions) => {
    checkTtl(opts.ttlMs);
    for (const tag of opts.tags ?? []) checkKey(tag, 'tag');
  };
  /** Answers `out` once durable: a write that changed nothing still waits for what it read. */
  const after = async <T>(key: string, changed: boolean, out: T): Promise<T> => {
    await (changed ? flushOf(key) : unflushed.get(key));
    return out;
  };
  return {
    async create(key, value, opts) {
      checkKey(key);
      checked(opts);
      const t = now();
      const created =
        guard('create a record', () => tx(() => put(key, value, opts, t))) === 'created';
      maybeSweep();
      return after(key, created, created);
    },
    async createCapped(key, value, opts, cap) {
      checkKey(key);
      checked(opts);
      checkCap(cap);
      const t = now();
      const out = guard('create a record', () => tx(() => put(key, value, opts, t, cap)));
      maybeSweep();
      return after(key, out === 'created', out);
    },
    async get(key) {
      await unflushed.get(key);
      return guard('read a record', () => row(select.get(key, now())));
    },
    async update(key, version, value, opts) {
      const t = now();
      const body = JSON.stringify(value);
      if (opts?.ttlMs === undefined) {
        const done = guard(
          'update a record',
          () => Number(cas.run(body, null, key, version, t).changes) === 1,
        );
        // Committed: what the caller writes next lands in the same log after it, and in the
        // same flush when written in this turn of the event loop.
        if (done) opts?.committed?.();
        return after(key, done, done);
      }
      checkTtl(opts.ttlMs);
      const expiresAt = t + opts.ttlMs;
      const done = guard('update a record', () =>
        tx(() => {
          if (Number(cas.run(body, expiresAt, key, version, t).changes) !== 1) return false;
          retime.run(expiresAt, key);
          return true;
        }),
      );
      if (done) opts.committed?.();
      return after(key, done, done);
    },
    async take(key) {
      // One transaction: a record is never taken without its tags going too, nor lost to a
      // failure between the two.
      const taken = guard('take a record', () =>
        tx(() => {
          const r = row(takeRow.get(key, now()));
          if (r !== undefined) uncount(tagDel.all(key));
          return r as never;
        }),
      );
      return after(key, taken !== undefined, taken);
    },
    async delete(key) {
      guard('delete a record', () =>
        tx(() => {
          del.run(key);
          uncount(tagDel.all(key));
        }),
      );
      await flushOf(key);
    },
    async findByTag(tag, page) {
      checkPage(page);
      await settled();
      const rows = guard('find records by tag', () =>
        page === undefined
          ? byTag.all(tag, now())
          : pageByTag.all(tag, page.after ?? '', now(), page.limit),
      );
      return rows.map((r) => String((r as { key: string }).key));
    },
    async countByTag(tag) {
      await settled();
      const t = now();
      return guard('count records by tag', () => tx(() => liveCount(tag, t)));
    },
    async close() {
      await (nextFlush ?? flushing)?.catch(() => {});
      db.close();
      if (log !== undefined) closeSync(log);
      log = undefined;
    },
  };
}
