/**
 * The connect pages' limits over real HTTP: request bodies are refused while they stream in (after
 * the origin check, before parsing), sign-ins are rate-limited per client address and capped in
 * the store, and a copy of the store holds no usable session cookie.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ConnectAppOptions, createConnectApp } from '../../src/connect/index.ts';
import { AddressBuckets, ConnectLimitError, connectLimits } from '../../src/connect/limits.ts';
import { devLogin } from '../../src/connect/login.ts';
import { vaultEntryName } from '../../src/connect/vault.ts';
import { tokenPrincipal } from '../../src/kernel/keys.ts';
import { sqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import {
  type ConnectStack,
  connectStack,
  connectState,
  idpLogin,
  listenerOf,
  loginClients,
  loopbackServer,
} from '../support/kit.ts';

const servers: Server[] = [];
const stacks: ConnectStack[] = [];
afterAll(async () => {
  for (const s of servers) s.close();
  for (const s of stacks) await s.close();
});

/** Connect pages on a real loopback server; `options` may replace the login, limits, store. */
async function serve(options: Partial<ConnectAppOptions> & { store?: Store } = {}) {
  const { server, base } = await loopbackServer();
  servers.push(server);
  const state = connectState(options.store);
  const app = createConnectApp({
    baseUrl: base,
    ...state,
    login: devLogin(),
    providers: {},
    ...options,
  });
  server.on('request', listenerOf(app.fetch));
  return { base, store: state.store, records: state.records, vault: state.vault, app };
}

const sameSite = (base: string) => ({
  origin: base,
  'sec-fetch-site': 'same-origin',
  'content-type': 'application/x-www-form-urlencoded',
});

async function signIn(base: string, user: string): Promise<string> {
  const res = await fetch(`${base}/elicit/login`, {
    method: 'POST',
    headers: sameSite(base),
    body: new URLSearchParams({ user, next: '' }),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

/** A body of `total` bytes made on demand; `pulled()` says how much the sender has produced. */
function bigBody(total: number) {
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}

/** POSTs a streamed body; the server may close the connection early, which ends the upload. */
async function postStream(url: string, headers: Record<string, string>, total: number) {
  const big = bigBody(total);
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: big.body,
    duplex: 'half',
    redirect: 'manual',
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, text, pulled: big.pulled(), cookie: res.headers.get('set-cookie') };
}

const MB = 1024 * 1024;

describe('request bodies', () => {
  it('an unauthenticated sign-in POST of 64 MB is refused at the limit, not buffered', async () => {
    const { base } = await serve();
    const r = await postStream(`${base}/elicit/login`, sameSite(base), 64 * MB);
    expect(r.status).toBe(413);
    expect(r.text).toContain('larger than 65536 bytes');
    // The server stopped reading: only what the socket buffers held left the sender.
    expect(r.pulled).toBeLessThan(16 * MB);
    expect(r.cookie).toBeNull();
  }, 60_000);

  it("a signed-in user's oversized secret POST is refused and stores nothing", async () => {
    const { base, records, vault } = await serve({ limits: { bodyBytes: 8 * 1024 } });
    const cookie = await signIn(base, 'ann');
    const record = await records.create({
      principal: tokenPrincipal('dev', 'ann'),
      clientId: undefined,
      purpose: 'secret',
      subject: 'k',
      label: 'K',
      description: undefined,
      origin: undefined,
    });
    const r = await postStream(
      `${base}/elicit/${record.id}/secret`,
      { ...sameSite(base), cookie },
      64 * MB,
    );
    expect(r.status).toBe(413);
    expect(r.text).toContain('larger than 8192 bytes');
    expect(r.pulled).toBeLessThan(16 * MB);
    expect(
      await vault.get({
        principal: tokenPrincipal('dev', 'ann'),
        provider: vaultEntryName('secret', 'k'),
      }),
    ).toBeUndefined();
    expect((await records.get(record.id))?.status).toBe('pending');
    // A form within the limit still works on the same record.
    const page = await (await fetch(`${base}/elicit/${record.id}`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const ok = await fetch(`${base}/elicit/${record.id}/secret`, {
      method: 'POST',
      headers: { ...sameSite(base), cookie },
      body: new URLSearchParams({ secret: 's3cret', csrf }),
    });
    expect(ok.status).toBe(200);
    expect(
      await vault.get({
        principal: tokenPrincipal('dev', 'ann'),
        provider: vaultEntryName('secret', 'k'),
      }),
    ).toBe('s3cret');
  }, 60_000);

  it('a cross-site POST is refused before its body is read', async () => {
    const { base, records } = await serve();
    const cookie = await signIn(base, 'bea');
    const record = await records.create({
      principal: tokenPrincipal('dev', 'bea'),
      clientId: undefined,
      purpose: 'secret',
      subject: 'k',
      label: 'K',
      description: undefined,
      origin: undefined,
    });
    const r = await postStream(
      `${base}/elicit/${record.id}/secret`,
      {
        cookie,
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      64 * MB,
    );
    expect(r.status).toBe(403);
    expect(r.pulled).toBeLessThan(16 * MB);
  }, 60_000);

  it('a declared Content-Length over the limit is refused without waiting for the body', async () => {
    const { base } = await serve();
    const url = new URL(`${base}/elicit/login`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers: { ...sameSite(base), 'content-length': String(100 * MB) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });
});

describe('sign-in limits', () => {
  it('/elicit/login is rate-limited per client address', async () => {
    const limits = { loginBurst: 3, loginPerMinute: 1 };
    const { base } = await serve({ limits });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${base}/elicit/login`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await fetch(`${base}/elicit/login`);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.text()).toContain('Too many sign-in attempts');
    // Behind a proxy the deployer names the address; each address has its own bucket.
    const proxied = await serve({
      limits,
      clientAddress: (req) => req.headers.get('x-forwarded-for') ?? undefined,
    });
    const from = (address: string) =>
      fetch(`${proxied.base}/elicit/login`, { headers: { 'x-forwarded-for': address } }).then(
        (r) => r.status,
      );
    for (let i = 0; i < 3; i++) expect(await from('192.0.2.1')).toBe(200);
    expect(await from('192.0.2.1')).toBe(429);
    expect(await from('192.0.2.2')).toBe(200);
  });

  it('the address table is bounded: the least recently seen address is forgotten', () => {
    // A clock that stands still: no bucket refills, so a full one can only be a forgotten one.
    const buckets = new AddressBuckets(
      connectLimits({ loginBurst: 1, loginPerMinute: 1, trackedAddresses: 2 }),
      () => 0,
    );
    expect(buckets.take('a')).toBe(true);
    expect(buckets.take('a')).toBe(false);
    expect(buckets.take('b')).toBe(true);
    expect(buckets.take('c')).toBe(true); // a third address: `a` is forgotten
    expect(buckets.take('a')).toBe(true); // and `b` now is
    expect(buckets.take('c')).toBe(false);
    expect(buckets.take('b')).toBe(true);
  });

  it('unauthenticated sign-in transactions are capped in number and live only loginTtlMs', async () => {
    const stack = await connectStack({
      idpClients: loginClients,
    });
    stacks.push(stack);
    const { base, idp, store } = stack;
    const app = stack.pages({
      login: idpLogin(idp),
      providers: {},
      limits: { loginTransactions: 3, loginTtlMs: 5 * 60_000 },
    });
    stack.route(listenerOf(app.fetch));
    const states: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}/elicit/login`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toContain(idp.issuer);
      expect(res.headers.get('set-cookie')).toMatch(
        /^elicit-dev-login=[A-Za-z0-9_-]{22}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=300$/,
      );
      states.push(new URL(res.headers.get('location') as string).searchParams.get('state') ?? '');
    }
    const fourth = await fetch(`${base}/elicit/login`, { redirect: 'manual' });
    expect(fourth.status).toBe(503);
    expect(await fourth.text()).toContain('Too many sign-ins are in progress');
    for (const state of states) {
      const tx = await store.get(`login:${state}`);
      expect(tx).toBeDefined();
      expect((tx?.expiresAt ?? Number.POSITIVE_INFINITY) - Date.now()).toBeLessThanOrEqual(
        5 * 60_000,
      );
    }
  });
});

describe('sessions at rest', () => {
  it('the store keeps a hash of the session id: its files hold no cookie that signs in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'elicit-sessions-'));
    const store = await sqliteStore({ path: join(dir, 'store.db') });
    const { base } = await serve({ store });
    const cookie = await signIn(base, 'cleo');
    const id = cookie.split('=')[1] as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // The session works…
    const page = await (await fetch(`${base}/elicit/login`, { headers: { cookie } })).text();
    expect(page).toContain('Signed in as <strong><bdi>cleo</bdi></strong>');
    // …and a dump of the store (database and WAL files) does not contain the cookie value.
    const dump = Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
    expect(dump.includes('cleo')).toBe(true);
    expect(dump.includes(id)).toBe(false);
    expect(await store.get(`bs:${id}`)).toBeUndefined();
  });

  it('a signed-in browser is not switched to another user by a development sign-in', async () => {
    const { base } = await serve();
    const cookie = await signIn(base, 'eve');
    const again = await fetch(`${base}/elicit/login`, {
      method: 'POST',
      headers: { ...sameSite(base), cookie },
      body: new URLSearchParams({ user: 'frank', next: '' }),
      redirect: 'manual',
    });
    expect(again.status).toBe(409);
    expect(again.headers.get('set-cookie')).toBeNull();
    const page = await again.text();
    expect(page).toContain(
      'signed in as <strong><bdi>eve</bdi></strong>, but this sign-in is for <strong><bdi>frank</bdi></strong>',
    );
    const home = await (await fetch(`${base}/elicit/`, { headers: { cookie } })).text();
    expect(home).toContain('Signed in as <strong><bdi>eve</bdi></strong>');
  });

  it('signing out removes the stored session; pages then say nobody is signed in', async () => {
    const { base } = await serve();
    const cookie = await signIn(base, 'dora');
    const home = await (await fetch(`${base}/elicit/`, { headers: { cookie } })).text();
    expect(home).toContain('Signed in as <strong><bdi>dora</bdi></strong>');
    const csrf = /name="csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
    const wrong = await fetch(`${base}/elicit/logout`, {
      method: 'POST',
      headers: { ...sameSite(base), cookie },
      body: new URLSearchParams({ csrf: 'wrong' }),
    });
    expect(wrong.status).toBe(403);
    const out = await fetch(`${base}/elicit/logout`, {
      method: 'POST',
      headers: { ...sameSite(base), cookie },
      body: new URLSearchParams({ csrf }),
    });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^elicit-dev-session=; .*Max-Age=0/);
    // The old cookie, replayed, no longer signs anyone in.
    const after = await (await fetch(`${base}/elicit/`, { headers: { cookie } })).text();
    expect(after).toContain('Not signed in.');
  });
});

describe('limits', () => {
  it('a limit that is not a positive whole number is refused by name', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => connectLimits({ bodyBytes: bad })).toThrow(ConnectLimitError);
      expect(() => connectLimits({ bodyBytes: bad })).toThrow(/limits\.bodyBytes/);
    }
  });
});
