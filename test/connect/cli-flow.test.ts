/**
 * The full URL-mode flow through `elicit host`: the demo stack (SQLite, connect pages, a local
 * OAuth provider), the CLI with a scripted renderer, and a browser program driving Chromium.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemo } from '../../src/demo/stack.ts';

const dir = mkdtempSync(join(tmpdir(), 'elicit-cli-flow-'));
let demo: DemoStack | undefined;
const bot = join(dir, 'browser');
beforeAll(async () => {
  writeFileSync(
    bot,
    `#!/bin/sh\nexec ${process.execPath} ${join(process.cwd(), 'test/fixtures/browser-bot.ts')} "$1"\n`,
    { mode: 0o755 },
  );
  writeFileSync(join(dir, 'answers.json'), JSON.stringify({ urls: 'open' }));
}, 60_000);
afterAll(async () => {
  await demo?.close();
});

function connect(url: string, era: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        'src/cli/main.ts',
        'host',
        url,
        '--era',
        era,
        '--call',
        'connect_calendar',
        '--answers',
        join(dir, 'answers.json'),
      ],
      { env: { ...process.env, ELICIT_BROWSER: bot, NO_COLOR: '1' }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : 1, out: stdout + stderr }),
    );
  });
}

describe('a stored connection that stops working', () => {
  it.each(['legacy', 'modern'])(
    'on the %s era, every run on one folder ends connected, asking again when the provider forgot the tokens',
    async (era) => {
      // The demo's provider keeps its grants in memory: after a restart, the stored tokens (and
      // their refresh token) are refused. The entry is dropped and the person asked again.
      const folder = mkdtempSync(join(dir, `again-${era}-`));
      for (let run = 1; run <= 3; run++) {
        await demo?.close();
        demo = await startDemo({ dir: folder });
        const r = await connect(demo.url.href, era);
        expect(r.out).toMatch(/◀ Today for demo-user: 09:30 Standup/);
        if (run > 1) expect(r.out).toContain('Your calendar connection stopped working.');
        expect(r.out).not.toContain('server responded with an error');
        expect(r.code).toBe(0);
      }
    },
    300_000,
  );
});

describe('URL mode through elicit host', () => {
  it.each(['legacy', 'modern'])(
    'connect_calendar on the %s era',
    async (era) => {
      // A fresh demo each time (its own SQLite file), so the calendar starts disconnected.
      await demo?.close();
      demo = await startDemo({ dir: mkdtempSync(join(dir, `${era}-`)) });
      const r = await connect(demo.url.href, era);
      expect(r.out).toContain('Connect your calendar so this tool can use it for you.');
      expect(r.out).toMatch(
        /◀ Today for demo-user: 09:30 Standup; 12:00 Lunch with Ada; 16:00 Design review\./,
      );
      expect(r.code).toBe(0);
    },
    120_000,
  );
});
