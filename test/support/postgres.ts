/** The PostgreSQL server the tests and benches use, and schemas of their own in it. */

/** The PostgreSQL this machine runs (trust authentication on 127.0.0.1). */
export const POSTGRES_URL =
  process.env.ELICIT_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A schema name no other run uses. */
export const uniqueSchema = (name: string): string =>
  `elicit_test_${name.replace(/[^a-z0-9]/g, '_')}_${process.pid}_${Date.now().toString(36)}`;

/** Drops a test schema (and everything in it). */
export async function dropSchema(schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
