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

function open(path: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['test/fixtures/sqlite-open.ts', path], {
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
      const outs = await Promise.all(Array.from({ length: 6 }, () => open(path)));
      expect(outs).toEqual(Array(6).fill('ok'));
      const store = await sqliteStore({ path });
      expect((await store.get('missing')) ?? null).toBeNull();
      await store.close();
    }
  });
});
