/**
 * `node bench/sqlite-commit.ts`: what one durable SQLite commit costs on this disk, beside the
 * same commit whose log is flushed by the store after it (`synchronous = NORMAL` and `fsync` of
 * the log, as sqliteStore does). The floor of a durable `tasks/update` is one flush of the log:
 * the answer must be on disk before the ack.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const N = Number(process.env.BENCH_COMMITS ?? 200);
const value = 'y'.repeat(600);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

function commits(synchronous: 'FULL' | 'NORMAL', flush: boolean): number {
  const path = join(mkdtempSync(join(tmpdir(), 'elicit-commit-')), 'c.db');
  const db = new DatabaseSync(path);
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous}; CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT, n INTEGER); INSERT INTO t VALUES ('a', '', 0);`,
  );
  const update = db.prepare("UPDATE t SET v = ?, n = n + 1 WHERE k = 'a'");
  const samples: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    update.run(value);
    if (flush) {
      const fd = openSync(`${path}-wal`, 'r+');
      fsyncSync(fd);
      closeSync(fd);
    }
    samples.push(performance.now() - t0);
  }
  db.close();
  return median(samples);
}

for (let round = 0; round < 3; round++) {
  const full = commits('FULL', false);
  const normal = commits('NORMAL', false);
  const flushed = commits('NORMAL', true);
  console.log(
    `commit, synchronous = FULL: ${full.toFixed(3)} ms; NORMAL, not flushed: ${normal.toFixed(3)} ms; NORMAL + fsync of the log: ${flushed.toFixed(3)} ms`,
  );
}
