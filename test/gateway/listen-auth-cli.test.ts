/**
 * `elicit gateway --listen … --auth-issuer …` as a child process, on real parts: listening on
 * every interface is allowed once callers must present access tokens (oidc-provider's JWT
 * access tokens for the gateway's address); a request without one gets the 401 challenge and
 * the metadata names the issuer; an SDK client with a token calls a tool that asks; the note
 * on stderr says how those callers reach the inbox (their issuer's sign-in). Without
 * --auth-issuer the same address is refused, and the flags' mistakes are usage errors.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Idp, jwtAccessToken, startIdp } from '../support/idp.ts';
import { freePort, stop } from '../support/processes.ts';

const root = join(import.meta.dirname, '..', '..');
const asker = [process.execPath, join(root, 'test', 'fixtures', 'gateway-asker.ts')];
let idp: Idp;
let child: ChildProcess | undefined;
let resource = '';
let said = '';

const elicit = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'elicit.js'), 'gateway', ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });

beforeAll(async () => {
  idp = await startIdp([{ client_id: 'mcp-host', redirect_uris: ['http://127.0.0.1/unused'] }], {
    jwtResources: () => true,
  });
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const started = spawn(
    process.execPath,
    [
      join(root, 'bin', 'elicit.js'),
      'gateway',
      '--listen',
      `0.0.0.0:${port}`,
      '--auth-issuer',
      idp.issuer,
      '--auth-audience',
      resource,
      '--inbox',
      '--',
      ...asker,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child = started;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not serving: ${said}`)), 30_000);
    started.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('present its access tokens')) {
        clearTimeout(timer);
        resolve();
      }
    });
    started.once('exit', (code) => reject(new Error(`exited with ${code}: ${said}`)));
  });
}, 60_000);
afterAll(async () => {
  await stop(child);
  await idp?.close();
});

describe('elicit gateway --listen --auth-issuer', () => {
  it('serves every interface, with the 401 challenge and the metadata naming the issuer', async () => {
    expect(said).toContain(`present its access tokens for ${resource}`);
    // The inbox's printed link is `local`'s, which no caller with a token is.
    expect(said).toContain(`give --inbox-issuer ${idp.issuer}`);
    const r = await fetch(resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(401);
    const metadata = /resource_metadata="([^"]+)"/.exec(r.headers.get('www-authenticate') ?? '');
    expect(metadata?.[1]).toBe(new URL('/.well-known/oauth-protected-resource/mcp', resource).href);
    const doc = (await (await fetch(metadata?.[1] as string)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ resource, authorization_servers: [idp.issuer] });
  });

  it('lets an SDK client with an access token call a tool that asks', async () => {
    const client = new Client(
      { name: 'host', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { size: 5, loud: false },
    }));
    const headers = { authorization: `Bearer ${await jwtAccessToken(idp, 'alice', resource)}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers } }),
    );
    try {
      const r = await client.callTool({ name: 'settings', arguments: {} });
      expect((r.content as { text: string }[])[0]?.text).toBe('size 5, loud false');
      // The same client with another resource's token is refused.
      const wrong = await fetch(resource, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${await jwtAccessToken(idp, 'alice', 'http://127.0.0.1:1/mcp')}`,
        },
        body: '{}',
      });
      expect(wrong.status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('refuses every interface without --auth-issuer, and mistaken flags', async () => {
    const port = String(await freePort());
    const open = elicit('--listen', `0.0.0.0:${port}`, '--', ...asker);
    expect(open.status).toBe(1);
    expect(open.stderr).toContain('reachable beyond loopback');
    const insecure = elicit(
      '--listen',
      `127.0.0.1:${port}`,
      '--auth-issuer',
      'http://idp.example.com',
      '--',
      ...asker,
    );
    expect(insecure.status).toBe(2);
    expect(insecure.stderr).toContain('https');
    const noListen = elicit('--auth-issuer', 'https://idp.example.com', '--', ...asker);
    expect(noListen.status).toBe(2);
    expect(noListen.stderr).toContain('for --listen');
    const noAudience = elicit(
      '--listen',
      `0.0.0.0:${port}`,
      '--auth-issuer',
      'https://idp.example.com',
      '--',
      ...asker,
    );
    expect(noAudience.status).toBe(2);
    expect(noAudience.stderr).toContain('--auth-audience is needed');
  }, 60_000);
});
