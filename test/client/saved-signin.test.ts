/**
 * A server that refuses a saved sign-in (here with HTTP 500, as some do): the host says a saved
 * sign-in was sent and how to forget it (`elicit logout <url>`), instead of a bare status.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signInFile, writeSignIn } from '../../src/cli/auth-store.ts';

const seen: (string | undefined)[] = [];
const server = createServer((req, res) => {
  seen.push(req.headers.authorization);
  res.writeHead(500).end('internal error');
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a saved sign-in the server refuses', () => {
  it('suggests elicit logout', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const config = mkdtempSync(join(tmpdir(), 'elicit-config-'));
    await writeSignIn(signInFile(join(config, 'elicit'), url), {
      version: 1,
      server: url,
      tokens: { access_token: 'stale-token', token_type: 'Bearer' },
    });
    const out = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        ['src/cli/main.ts', 'host', url, '--call', 'anything', '--connect-timeout', '10'],
        { env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: config }, timeout: 60_000 },
        (_error, stdout, stderr) => resolve(stdout + stderr),
      );
    });
    expect(seen).toContain('Bearer stale-token');
    expect(out).toContain('HTTP 500');
    expect(out).toContain(
      `A saved sign-in was sent; if the server no longer accepts it, run: elicit logout ${url}`,
    );
  }, 60_000);
});
