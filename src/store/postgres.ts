/**
 * PostgreSQL store (`pg`, imported lazily): for several replicas sharing one database, with no
 * Redis. Every operation is one statement or one call of a function the driver installs, so
 * each is atomic in the database and one round trip.
 *
 * The driver creates and migrates its own schema (a version row, migrations applied in order
 * under an advisory lock, so replicas starting together migrate once). Tag rows carry their
 * record's expiry and each tag has a live counter, like the SQLite store: a capped create locks
 * its tag's counter row, drops the tag's expired rows (each once) and compares, so racing
 * creators never overshoot and the cost does not grow with the number of live records.
 */
import type { Pool, PoolConfig } from 'pg';
import { ELICIT_STORE_KEY } from '../kernel/error-codes.ts';
import {
  checkCap,
  checkKey,
  checkPage,
  checkTtl,
  type Json,
  type Store,
  type Stored,
  StoreError,
  storeFailure,
} from './types.ts';

export interface PostgresStoreOptions {
  /** A connection string (postgres://user@127.0.0.1:5432/db) or an existing `pg` Pool. */
  readonly url?: string;
  readonly pool?: Pool;
  /** The schema holding the tables, so several apps (or test runs) share a database; default "elicit". */
  readonly schema?: string;
  /** Options for the pool the driver opens (max connections, timeouts…). */
  readonly pg?: PoolConfig;
  readonly now?: () => number;
}

/** Migrations by version; version n brings the schema from n - 1 to n. Append, never edit. */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.elicit_records (key text COLLATE "C" PRIMARY KEY, value text NOT NULL, version bigint NOT NULL, expires_at bigint NOT NULL);
    CREATE INDEX elicit_records_expiry ON ${s}.elicit_records (expires_at);
    CREATE TABLE ${s}.elicit_tags (tag text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (tag, key));
    CREATE INDEX elicit_tags_expiry ON ${s}.elicit_tags (tag, expires_at);
    CREATE INDEX elicit_tags_key ON ${s}.elicit_tags (key);
    CREATE TABLE ${s}.elicit_tag_counts (tag text COLLATE "C" PRIMARY KEY, n bigint NOT NULL);

    -- Removes the tag rows of a record that is gone, keeping each tag's count.
    CREATE FUNCTION ${s}.elicit_untag(p_key text) RETURNS VOID LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM ${s}.elicit_tag_counts
        WHERE tag IN (SELECT tag FROM ${s}.elicit_tags WHERE key = p_key) ORDER BY tag FOR UPDATE;
      WITH gone AS (DELETE FROM ${s}.elicit_tags WHERE key = p_key RETURNING tag)
      UPDATE ${s}.elicit_tag_counts c SET n = c.n - g.k
        FROM (SELECT tag, count(*) AS k FROM gone GROUP BY tag) g WHERE c.tag = g.tag;
    END $$;

    -- The live count of a tag: its expired rows leave first (each once), then the counter.
    CREATE FUNCTION ${s}.elicit_count(p_tag text, p_now bigint) RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE gone bigint; live bigint;
    BEGIN
      SELECT n INTO live FROM ${s}.elicit_tag_counts WHERE tag = p_tag FOR UPDATE;
      IF live IS NULL THEN RETURN 0; END IF;
      WITH g AS (DELETE FROM ${s}.elicit_tags WHERE tag = p_tag AND expires_at <= p_now RETURNING 1)
      SELECT count(*) INTO gone FROM g;
      IF gone > 0 THEN
        UPDATE ${s}.elicit_tag_counts SET n = n - gone WHERE tag = p_tag;
        live := live - gone;
      END IF;
      RETURN live;
    END $$;

    -- Removes a record with its tags; returns it when it was live at p_now (null: never returned).
    CREATE FUNCTION ${s}.elicit_take(p_key text, p_now bigint)
      RETURNS TABLE (value text, version bigint, expires_at bigint) LANGUAGE plpgsql AS $$
    DECLARE r record;
    BEGIN
      DELETE FROM ${s}.elicit_records d WHERE d.key = p_key RETURNING d.value, d.version, d.expires_at INTO r;
      IF NOT FOUND THEN RETURN; END IF;
      PERFORM ${s}.elicit_untag(p_key);
      IF p_now IS NOT NULL AND r.expires_at > p_now THEN
        value := r.value; version := r.version; expires_at := r.expires_at;
        RETURN NEXT;
      END IF;
    END $$;

    -- 1 created, 0 exists, 2 full (p_cap_tag null: no cap). Tag counters are locked in tag order.
    CREATE FUNCTION ${s}.elicit_create(p_key text, p_value text, p_expires bigint, p_now bigint,
      p_tags text[], p_cap_tag text, p_cap_max bigint) RETURNS int LANGUAGE plpgsql AS $$
    DECLARE t text;
    BEGIN
      DELETE FROM ${s}.elicit_records WHERE key = p_key AND expires_at <= p_now;
      IF FOUND THEN PERFORM ${s}.elicit_untag(p_key); END IF;
      IF cardinality(p_tags) > 0 THEN
        INSERT INTO ${s}.elicit_tag_counts (tag, n) SELECT u, 0 FROM unnest(p_tags) u ORDER BY u
          ON CONFLICT (tag) DO NOTHING;
        PERFORM 1 FROM ${s}.elicit_tag_counts WHERE tag = ANY (p_tags) ORDER BY tag FOR UPDATE;
      END IF;
      IF p_cap_tag IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM ${s}.elicit_records WHERE key = p_key) THEN RETURN 0; END IF;
        IF ${s}.elicit_count(p_cap_tag, p_now) >= p_cap_max THEN RETURN 2; END IF;
      END IF;
      INSERT INTO ${s}.elicit_records (key, value, version, expires_at) VALUES (p_key, p_value, 1, p_expires)
        ON CONFLICT (key) DO NOTHING;
      IF NOT FOUND THEN RETURN 0; END IF;
      FOREACH t IN ARRAY p_tags LOOP
        INSERT INTO ${s}.elicit_tags (tag, key, expires_at) VALUES (t, p_key, p_expires);
        UPDATE ${s}.elicit_tag_counts SET n = n + 1 WHERE tag = t;
      END LOOP;
      RETURN 1;
    END $$;
  `,
];

/** A schema name is used in SQL as it is: letters, digits and underscores only. */
function checkSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new StoreError(
      ELICIT_STORE_KEY,
      `postgresStore schema must be 1-63 lowercase letters, digits or underscores (not starting with a digit), got ${JSON.stringify(schema.slice(0, 70))}`,
    );
  return schema;
}

/** Creates the schema or brings it to the newest version; replicas wait for each other. */
async function migrate(pool: Pool, s: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`elicit-schema:${s}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.elicit_schema (version int NOT NULL)`);
    const row = (await client.query(`SELECT version FROM ${s}.elicit_schema`)).rows[0] as
      | { version: number }
      | undefined;
    const from = row?.version ?? 0;
    for (let v = from; v < MIGRATIONS.length; v++)
      await client.query((MIGRATIONS[v] as (s: string) => string)(s));
    if (row === undefined)
      await client.query(`INSERT INTO ${s}.elicit_schema (version) VALUES ($1)`, [
        MIGRATIONS.length,
      ]);
    else if (from < MIGRATIONS.length)
      await client.query(`UPDATE ${s}.elicit_schema SET version = $1`, [MIGRATIONS.length]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** The newest schema version this driver writes. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Opens (and creates or migrates) the store in `schema` of the PostgreSQL at `url`, or on the
 * pool given. Replicas pointed at one database and schema share every record.
 */
export async function postgresStore(options: PostgresStoreOptions = {}): Promise<Store> {
  const s = checkSchema(options.schema ?? 'elicit');
  const now = options.now ?? Date.now;
  let pool: Pool;
  if (options.pool !== undefined) pool = options.pool;
  else {
    const pg = await import('pg');
    const Pg = (pg as unknown as { default?: typeof pg }).default ?? pg;
    pool = new Pg.Pool({
      connectionString: options.url ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      max: 10,
      connectionTimeoutMillis: 5000,
      ...options.pg,
    });
  }
  const own = options.pool === undefined;
  // An idle connection that breaks is reported here; the pool replaces it on the next query,
  // and the query that meets an outage fails with a StoreError.
  if (own) pool.on('error', () => {});
  try {
    await migrate(pool, s);
  } catch (error) {
    if (own) await pool.end().catch(() => {});
    throw storeFailure('PostgreSQL', 'open its schema', error);
  }
  const q = async <R>(operation: string, text: string, values: unknown[]): Promise<R[]> => {
    try {
      return (await pool.query(text, values)).rows as R[];
    } catch (error) {
      throw storeFailure('PostgreSQL', operation, error);
    }
  };
  type Row = { value: string; version: string; expires_at: string };
  const row = <T extends Json>(r: Row | undefined): Stored<T> | undefined =>
    r === undefined
      ? undefined
      : {
          value: JSON.parse(r.value) as T,
          version: Number(r.version),
          expiresAt: Number(r.expires_at),
        };
  const create = async (
    key: string,
    value: Json,
    ttlMs: number,
    tags: readonly string[],
    capTag: string | null,
    capMax: number,
  ): Promise<number> => {
    checkKey(key);
    checkTtl(ttlMs);
    for (const tag of tags) checkKey(tag, 'tag');
    const all = [...new Set(capTag === null ? tags : [...tags, capTag])].sort();
    const t = now();
    const [r] = await q<{ out: number }>(
      'create a record',
      `SELECT ${s}.elicit_create($1, $2, $3, $4, $5, $6, $7) AS out`,
      [key, JSON.stringify(value), t + ttlMs, t, all, capTag, capMax],
    );
    return Number(r?.out);
  };
  let writes = 0;
  const sweep = () => {
    if (++writes % 1000 !== 0) return;
    // Records nobody reads again still go; a failed sweep is retried a thousand writes later.
    const t = now();
    void q(
      'sweep expired records',
      `WITH r AS (DELETE FROM ${s}.elicit_records WHERE expires_at <= $1),
            g AS (DELETE FROM ${s}.elicit_tags WHERE expires_at <= $1 RETURNING tag)
       UPDATE ${s}.elicit_tag_counts c SET n = c.n - x.k
         FROM (SELECT tag, count(*) AS k FROM g GROUP BY tag) x WHERE c.tag = x.tag`,
      [t],
    ).catch(() => {});
  };
  return {
    async create(key, value, opts) {
      const out = await create(key, value, opts.ttlMs, opts.tags ?? [], null, 0);
      sweep();
      return out === 1;
    },
    async createCapped(key, value, opts, cap) {
      checkCap(cap);
      const out = await create(key, value, opts.ttlMs, opts.tags ?? [], cap.tag, cap.max);
      sweep();
      return out === 1 ? 'created' : out === 2 ? 'full' : 'exists';
    },
    async get(key) {
      const [r] = await q<Row>(
        'read a record',
        `SELECT value, version, expires_at FROM ${s}.elicit_records WHERE key = $1 AND expires_at > $2`,
        [key, now()],
      );
      return row(r);
    },
    async update(key, version, value, opts) {
      if (opts?.ttlMs !== undefined) checkTtl(opts.ttlMs);
      const t = now();
      const expiresAt = opts?.ttlMs === undefined ? null : t + opts.ttlMs;
      const [r] = await q<{ n: string }>(
        'update a record',
        `WITH u AS (
           UPDATE ${s}.elicit_records SET value = $1, version = version + 1, expires_at = COALESCE($2, expires_at)
           WHERE key = $3 AND version = $4 AND expires_at > $5 RETURNING key),
         t AS (UPDATE ${s}.elicit_tags SET expires_at = $2 WHERE $2 IS NOT NULL AND key IN (SELECT key FROM u))
         SELECT count(*) AS n FROM u`,
        [JSON.stringify(value), expiresAt, key, version, t],
      );
      return Number(r?.n) === 1;
    },
    async take(key) {
      const [r] = await q<Row>(
        'take a record',
        `SELECT value, version, expires_at FROM ${s}.elicit_take($1, $2)`,
        [key, now()],
      );
      return row(r) as never;
    },
    async delete(key) {
      await q('delete a record', `SELECT ${s}.elicit_take($1, NULL)`, [key]);
    },
    async findByTag(tag, page) {
      checkPage(page);
      const rows =
        page === undefined
          ? await q<{ key: string }>(
              'list records by tag',
              `SELECT key FROM ${s}.elicit_tags WHERE tag = $1 AND expires_at > $2`,
              [tag, now()],
            )
          : await q<{ key: string }>(
              'list records by tag',
              `SELECT key FROM ${s}.elicit_tags WHERE tag = $1 AND expires_at > $2 AND key > $3
               ORDER BY key LIMIT $4`,
              [tag, now(), page.after ?? '', page.limit],
            );
      return rows.map((r) => r.key);
    },
    async countByTag(tag) {
      const [r] = await q<{ n: string }>(
        'count records by tag',
        `SELECT ${s}.elicit_count($1, $2) AS n`,
        [tag, now()],
      );
      return Number(r?.n ?? 0);
    },
    async close() {
      if (own) await pool.end();
    },
  };
}
