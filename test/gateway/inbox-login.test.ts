/**
 * The inbox's own sign-in, on real parts: oidc-provider is the issuer of the hosts' access
 * tokens and of the inbox's sign-in; the gateway serves hosts over HTTP with principals from
 * those tokens. Chromium signs in through the provider's login form and sees only its own
 * question (another principal's stays invisible), answers it, and that call completes. Hostile
 * callbacks (forged or replayed state, another browser's sign-in, a code issued to another
 * client, a response or ID token from another issuer), a switch of identity, and a flood of
 * sign-ins are refused; pending sign-ins expire; a sign-in configured wrongly stops the inbox
 * from starting. `elicit gateway --inbox-issuer --inbox-client-id` signs Chromium in with a
 * confidential client whose secret comes from the environment.
 */
import { spawnSync } from 'node:child_process';
import { createServer as createHttpServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, Inbox } from '../../src/gateway/index.ts';
import { tokenPrincipal } from '../../src/kernel/keys.ts';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  type HttpOptions,
  httpEntry,
  type Listening,
  listen,
} from '../../src/server/index.ts';
import { launchBrowser } from '../support/browser.ts';
import { type Idp, startIdp } from '../support/idp.ts';
import { freePort } from '../support/processes.ts';

let idp: Idp;
let upstream: Listening;
let gateway: Gateway;
let front: Listening;
let inbox: Inbox;
/** An inbox whose configured issuer is a front for the provider that names another issuer. */
let misled: Inbox;
let liar: Server;
let browser: Browser;
let context: BrowserContext;
/** Where `elicit gateway --inbox-issuer …` puts its inbox (its redirect URI is registered). */
let cliInbox = '';
const root = join(import.meta.dirname, '..', '..');

// The inboxes listen on 127.0.0.2 and .3: their cookies are apart from the provider's
// (cookies do not tell ports apart), so the provider's session can be dropped alone.
const at = (host: string, port: number) => `http://${host}:${port}`;

/**
 * A front for the provider whose discovery document names the front as issuer: what an inbox
 * configured with the wrong issuer (or a provider in the middle) meets.
 */
async function startLiar(target: string): Promise<{ server: Server; issuer: string }> {
  const server = createHttpServer((req, res) => {
    const up = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (r) => {
        if (!(req.url ?? '').startsWith('/.well-known/openid-configuration')) {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
          return;
        }
        let body = '';
        r.on('data', (c) => (body += c));
        r.on('end', () => {
          const doc = JSON.parse(body) as Record<string, unknown>;
          doc.issuer = issuer;
          // Nor does it promise RFC 9207's iss in its responses, so only the ID token is left.
          delete doc.authorization_response_iss_parameter_supported;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
        });
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = at('127.0.0.1', (server.address() as AddressInfo).port);
  return { server, issuer };
}

/** The provider's own access token for `sub`, as a host signed in with it would present. */
async function accessToken(sub: string): Promise<string> {
  const { provider } = idp;
  const client = await provider.Client.find('mcp-host');
  const grant = new provider.Grant({ accountId: sub, clientId: 'mcp-host' });
  grant.addOIDCScope('openid');
  const token = new provider.AccessToken({
    accountId: sub,
    client: client as NonNullable<typeof client>,
    grantId: await grant.save(),
    gty: 'authorization_code',
    scope: 'openid',
  });
  return token.save();
}

/** Callers are the subjects of the provider's access tokens, checked with the provider. */
/** The provider (and the front that misdescribes it) are on 127.0.0.1; the inboxes are not. */
const atProvider = (url: string) => new URL(url).hostname === '127.0.0.1';

const verify: HttpOptions['authInfo'] = async (req) => {
  const bearer = /^Bearer (\S+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
  const found = bearer === undefined ? undefined : await idp.provider.AccessToken.find(bearer);
  return bearer === undefined || found === undefined
    ? undefined
    : {
        token: bearer,
        clientId: found.clientId ?? '',
        scopes: [],
        extra: { iss: idp.issuer, sub: found.accountId },
      };
};

beforeAll(async () => {
  const [port, misledPort] = [await freePort(), await freePort()];
  const base = at('127.0.0.2', port);
  const misledBase = at('127.0.0.3', misledPort);
  cliInbox = at('127.0.0.4', await freePort());
  idp = await startIdp([
    { client_id: 'inbox', redirect_uris: [`${base}/inbox/login/callback`] },
    { client_id: 'other-app', redirect_uris: [`${base}/inbox/login/callback`] },
    { client_id: 'misled', redirect_uris: [`${misledBase}/inbox/login/callback`] },
    { client_id: 'mcp-host', redirect_uris: [`${base}/unused`] },
    {
      client_id: 'cli-inbox',
      client_secret: 'cli-inbox-secret',
      redirect_uris: [`${cliInbox}/inbox/login/callback`],
    },
  ]);
  const lying = await startLiar(idp.issuer);
  liar = lying.server;
  const app = createServer({ name: 'asker', version: '1' }).tool(
    'name',
    { description: 'asks for a name' },
    async (_args, ask) => {
      const r = await ask.form('who', form({ name: text() }), { message: 'Your name?' });
      return r.action === 'accept' ? `hello ${r.content.name}` : r.action;
    },
  );
  upstream = await listen(httpEntry(app));
  inbox = await Inbox.start({
    host: '127.0.0.2',
    port,
    oidc: { issuer: idp.issuer, clientId: 'inbox', allowInsecure: true },
  });
  misled = await Inbox.start({
    host: '127.0.0.3',
    port: misledPort,
    oidc: { issuer: lying.issuer, clientId: 'misled', allowInsecure: true },
  });
  gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    inbox,
  });
  front = await gateway.listen({}, { authInfo: verify });
  browser = await launchBrowser();
  context = await browser.newContext();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await front?.close();
  await gateway?.close();
  await inbox?.close();
  await misled?.close();
  await upstream?.close();
  await new Promise((r) => liar?.close(r));
  await idp?.close();
});

/** A host that cannot ask, signed in to the server with `sub`'s access token. */
async function host(sub: string): Promise<Client> {
  const client = new Client({ name: 'cli', version: '1' }, { capabilities: {} });
  client.setVersionNegotiation({ mode: 'legacy' });
  const headers = { authorization: `Bearer ${await accessToken(sub)}` };
  await client.connect(new StreamableHTTPClientTransport(front.url, { requestInit: { headers } }));
  return client;
}

async function waiting(n: number): Promise<void> {
  for (let i = 0; i < 200 && inbox.size < n; i++) await new Promise((r) => setTimeout(r, 25));
  expect(inbox.size).toBe(n);
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

/** Through the provider's pages (login when asked, then consent) until the browser leaves them. */
async function throughProvider(page: Page, account: string): Promise<void> {
  for (let step = 0; step < 6 && atProvider(page.url()); step++) {
    await page.waitForSelector('input[name=login], button[type=submit]');
    if ((await page.$('input[name=login]')) !== null) {
      await page.fill('input[name=login]', account);
      await page.fill('input[name=password]', 'any');
    }
    const before = page.url();
    await Promise.all([
      page.waitForURL((u) => u.href !== before, { waitUntil: 'commit' }),
      page.click('button[type=submit]'),
    ]);
  }
  expect(atProvider(page.url())).toBe(false);
}

/** Opens `url` (a sign-in's start): the provider's page is shown. */
async function startAt(page: Page, url: URL | string): Promise<void> {
  await page.goto(url.toString());
  expect(atProvider(page.url())).toBe(true);
}

/**
 * Signs in at the provider as `account` and consents outside the browser's navigation (with
 * the browser's cookies): the address the provider sends the browser back to, not yet visited.
 */
async function heldReturn(page: Page, account: string): Promise<URL> {
  await page.waitForSelector('input[name=login]');
  await page.fill('input[name=login]', account);
  await page.fill('input[name=password]', 'any');
  const login = page.url();
  await Promise.all([page.waitForURL((u) => u.href !== login), page.click('button[type=submit]')]);
  await page.waitForSelector('form button[type=submit]');
  const form = await page.$eval('form', (f) => ({
    action: (f as HTMLFormElement).action,
    fields: Object.fromEntries(
      [...new FormData(f as HTMLFormElement)].map(([k, v]) => [k, String(v)]),
    ),
  }));
  let response = await page.request.post(form.action, { form: form.fields, maxRedirects: 0 });
  let location = new URL(response.headers().location ?? '', form.action);
  while (atProvider(location.href) && [302, 303].includes(response.status())) {
    response = await page.request.get(location.href, { maxRedirects: 0 });
    location = new URL(response.headers().location ?? '', location);
  }
  expect(location.pathname).toBe('/inbox/login/callback');
  return location;
}

/** The provider's sessions dropped (the inboxes' cookies kept): the next sign-in asks again. */
const forgetProvider = () => context.clearCookies({ domain: '127.0.0.1' });

/** A link's or sign-in's way into the inbox, without a browser: its session cookie. */
async function sessionFor(link: string): Promise<string> {
  const r = await fetch(link, { redirect: 'manual' });
  expect(r.status).toBe(303);
  return (r.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

describe('the inbox signs people in with the OpenID provider of their access tokens', () => {
  let callbackSeen = '';
  let doneSeen = '';

  it('Chromium signs in, sees only its own question, answers it, and that call completes', async () => {
    const alice = await host('alice');
    const bob = await host('bob');
    const aliceCall = alice.callTool({ name: 'name', arguments: {} });
    const bobCall = bob.callTool({ name: 'name', arguments: {} });
    await waiting(2);

    const page = await context.newPage();
    page.on('request', (r) => {
      if (r.url().includes('/inbox/login/callback')) callbackSeen = r.url();
      if (r.url().includes('/inbox/login/done')) doneSeen = r.url();
    });
    const first = await page.goto(inbox.url.href);
    expect(first?.status()).toBe(401);
    expect(await page.textContent('#sign-in')).toBe(`Sign in with ${new URL(idp.issuer).host}`);
    await Promise.all([
      page.waitForURL((u) => u.origin === new URL(idp.issuer).origin),
      page.click('#sign-in'),
    ]);
    await throughProvider(page, 'alice');
    await page.waitForURL(inbox.url.href);
    await page.waitForSelector('elicit-form >> input[name=name]');
    // Alice's question only: Bob's waits in his own inbox.
    expect(await page.locator('section').count()).toBe(1);
    await page.fill('elicit-form >> input[name=name]', 'Alice');
    await page.click('elicit-form >> [part=submit]');
    await page.click('elicit-form >> [part=submit]');
    expect(textOf(await aliceCall)).toBe('hello Alice');
    // The cookies: the session SameSite=Strict as with links, the login cookie spent.
    const cookies = await context.cookies(inbox.url.origin);
    expect(cookies.find((c) => c.name === 'elicit_inbox')?.sameSite).toBe('Strict');
    expect(cookies.some((c) => c.name === 'elicit_inbox_login')).toBe(false);

    // Bob's question was there all along, under his principal.
    const asBob = await sessionFor(await inbox.link(tokenPrincipal(idp.issuer, 'bob')));
    const listed = (await (
      await fetch(new URL('/inbox/questions', inbox.url), { headers: { cookie: asBob } })
    ).json()) as { id: string }[];
    expect(listed).toHaveLength(1);
    await bob.close();
    await alice.close();
    void bobCall.catch(() => {});
    await page.close();
  }, 90_000);

  it('a forged, malformed or replayed state and a replayed last step sign no one in', async () => {
    const callback = (query: string) =>
      fetch(new URL(`/inbox/login/callback?${query}`, inbox.url), { redirect: 'manual' });
    for (const query of [
      `code=x&state=${'A'.repeat(43)}`,
      'code=x&state=short',
      'code=x',
      `code=x&state=${'A'.repeat(43)}&pad=${'x'.repeat(9000)}`,
    ]) {
      const r = await callback(query);
      expect([400, 414]).toContain(r.status);
      expect(r.headers.get('set-cookie')).toBeNull();
      if (r.status === 400) expect(await r.text()).toContain('ELICIT_LOGIN_STATE');
    }
    expect(callbackSeen).toContain('state=');
    const replayed = await fetch(callbackSeen, { redirect: 'manual' });
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain('ELICIT_LOGIN_STATE');
    const again = await fetch(doneSeen, { redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(again.headers.get('set-cookie')).toBeNull();
  }, 30_000);

  it("another browser's callback is refused; a code issued to another client is refused", async () => {
    await forgetProvider();
    const page = await context.newPage();
    // The way back is kept from the browser and brought by someone else (no login cookie).
    await startAt(page, new URL('/inbox/login', inbox.url));
    const held = await heldReturn(page, 'mallory');
    expect(held.searchParams.get('code')).not.toBeNull();
    const stolen = await fetch(held, { redirect: 'manual' });
    expect(stolen.status).toBe(403);
    const said = await stolen.text();
    expect(said).toContain('started in another browser');
    expect(said).toContain('ELICIT_LOGIN_STATE');
    expect(stolen.headers.get('set-cookie')).toBeNull();

    // A sign-in whose authorization request names another client of the same provider: the
    // code is that client's, and the exchange as the inbox's client is refused.
    await forgetProvider();
    const started = await page.request.get(new URL('/inbox/login', inbox.url).href, {
      maxRedirects: 0,
    });
    const authorize = new URL(started.headers().location ?? '');
    authorize.searchParams.set('client_id', 'other-app');
    await startAt(page, authorize);
    await throughProvider(page, 'mallory');
    expect(new URL(page.url()).pathname).toBe('/inbox/login/callback');
    expect(await page.textContent('main')).toContain('ELICIT_LOGIN_REFUSED');
    await page.close();
  }, 90_000);

  it('a response and an ID token from another issuer than the configured one are refused', async () => {
    await forgetProvider();
    const page = await context.newPage();
    // The provider says who issued the response (RFC 9207 iss): not the configured issuer.
    await startAt(page, new URL('/inbox/login', misled.url));
    await throughProvider(page, 'mallory');
    const said = (await page.textContent('main')) ?? '';
    expect(said).toContain('ELICIT_LOGIN_REFUSED');
    expect(said).toMatch(/"iss" \(issuer\) response parameter/);
    // Without that parameter, the ID token's own iss gives it away.
    await forgetProvider();
    await startAt(page, new URL('/inbox/login', misled.url));
    const back = await heldReturn(page, 'mallory');
    back.searchParams.delete('iss');
    await page.goto(back.href);
    const body = (await page.textContent('main')) ?? '';
    expect(body).toContain('ELICIT_LOGIN_REFUSED');
    expect(body).toMatch(/"iss" \(issuer\) claim/);
    expect((await context.cookies(misled.url.origin)).some((c) => c.name === 'elicit_inbox')).toBe(
      false,
    );
    await page.close();
  }, 90_000);

  it('a browser signed in as someone else is never switched silently', async () => {
    const page = await context.newPage();
    // Still Alice from the first test.
    await page.goto(inbox.url.href);
    expect(page.url()).toBe(inbox.url.href);
    // A link minted for Bob: refused, and not spent.
    const bobsLink = await inbox.link(tokenPrincipal(idp.issuer, 'bob'));
    const refused = await page.goto(bobsLink);
    expect(refused?.status()).toBe(409);
    expect(await page.textContent('main')).toContain('already signed in');
    // A sign-in as Bob at the provider: refused the same way.
    await forgetProvider();
    await startAt(page, new URL('/inbox/login', inbox.url));
    await throughProvider(page, 'bob');
    await page.waitForSelector('#sign-out');
    expect(await page.textContent('main')).toContain('this sign-in is for');
    expect(await page.textContent('main')).toContain('bob');
    // Signing out (a form with the CSRF token, from the inbox's origin), then Bob's link works.
    await Promise.all([page.waitForURL(inbox.url.href), page.click('#sign-out')]);
    expect(await page.textContent('#sign-in')).toContain('Sign in with');
    const entered = await page.goto(bobsLink);
    expect(entered?.status()).toBe(200);
    expect(page.url()).toBe(inbox.url.href);
    await page.close();
  }, 90_000);

  it('sign-ins in progress are capped and expire; a sign-out needs the CSRF token and the Origin', async () => {
    const small = await Inbox.start({
      oidc: {
        issuer: idp.issuer,
        clientId: 'inbox',
        allowInsecure: true,
        maxPendingLogins: 3,
        loginTtlMs: 1000,
      },
    });
    const start = () =>
      fetch(new URL('/inbox/login', small.url), { redirect: 'manual' }).then(async (r) => ({
        status: r.status,
        body: await r.text(),
        state: new URL(r.headers.get('location') ?? 'http://x/').searchParams.get('state'),
        cookie: (r.headers.get('set-cookie') ?? '').split(';')[0] as string,
      }));
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await start());
    expect(results.map((r) => r.status)).toEqual([303, 303, 303, 503]);
    expect(results[3]?.body).toContain('ELICIT_LOGIN_BUSY');
    // Past loginTtlMs the pending sign-ins are gone: their states sign no one in, and new
    // sign-ins can start.
    await new Promise((r) => setTimeout(r, 1200));
    const first = results[0] as (typeof results)[0];
    const late = await fetch(
      new URL(`/inbox/login/callback?code=x&state=${first.state}`, small.url),
      { redirect: 'manual', headers: { cookie: first.cookie } },
    );
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('ELICIT_LOGIN_STATE');
    expect((await start()).status).toBe(303);
    await small.close();

    const cookie = await sessionFor(await inbox.link('carol'));
    const logout = (headers: Record<string, string>, body: string) =>
      fetch(new URL('/inbox/logout', inbox.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    expect((await logout({ origin: inbox.url.origin }, 'csrf=wrong')).status).toBe(403);
    expect((await logout({ origin: 'http://evil.test' }, 'csrf=wrong')).status).toBe(403);
    // Still signed in.
    expect(
      (await fetch(new URL('/inbox/questions', inbox.url), { headers: { cookie } })).status,
    ).toBe(200);
  }, 30_000);
});

describe('a sign-in configured wrongly', () => {
  it('is refused when the inbox starts, and the inbox does not stay listening', async () => {
    const port = await freePort();
    for (const [oidc, code] of [
      [{ issuer: 'http://idp.example.com', clientId: 'x' }, 'ELICIT_LOGIN_CONFIG'],
      [{ issuer: 'https://idp.example.com', clientId: '' }, 'ELICIT_LOGIN_CONFIG'],
      [{ issuer: 'https://idp.example.com', clientId: 'x', loginTtlMs: 0 }, 'ELICIT_LIMIT_INVALID'],
    ] as const)
      await expect(Inbox.start({ port, oidc })).rejects.toMatchObject({ code });
    // The port is free again.
    const again = await Inbox.start({ port });
    await again.close();
  });
});

describe('elicit gateway --inbox-issuer --inbox-client-id', () => {
  const elicit = (...args: string[]) =>
    spawnSync(process.execPath, [join(root, 'bin', 'elicit.js'), 'gateway', ...args], {
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('refuses an issuer that is not https, and one flag without the other', () => {
    const insecure = elicit(
      '--inbox-issuer',
      'http://idp.example.com',
      '--inbox-client-id',
      'x',
      '--',
      'node',
    );
    expect(insecure.status).toBe(2);
    expect(insecure.stderr).toContain('https');
    const alone = elicit('--inbox-issuer', 'https://idp.example.com', '--', 'node');
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('go together');
  });

  it('signs a browser in with the provider, the client secret taken from the environment', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(root, 'bin', 'elicit.js'),
        'gateway',
        '--inbox-listen',
        new URL(cliInbox).host,
        '--inbox-issuer',
        idp.issuer,
        '--inbox-client-id',
        'cli-inbox',
        '--',
        process.execPath,
        join(root, 'test', 'fixtures', 'gateway-asker.ts'),
      ],
      env: {
        ...(process.env as Record<string, string>),
        ELICIT_INBOX_CLIENT_SECRET: 'cli-inbox-secret',
      },
      stderr: 'pipe',
    });
    let said = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    const client = new Client({ name: 'cli-host', version: '1' }, { capabilities: {} });
    await client.connect(transport);
    try {
      expect(said).toContain(
        `people sign in to the inbox at ${cliInbox}/inbox with ${new URL(idp.issuer).host}`,
      );
      await forgetProvider();
      const page = await context.newPage();
      await page.goto(`${cliInbox}/inbox`);
      await Promise.all([page.waitForURL((u) => atProvider(u.href)), page.click('#sign-in')]);
      await throughProvider(page, 'dana');
      // The token request carried the secret (a confidential client): the inbox, signed in.
      await page.waitForURL(`${cliInbox}/inbox`);
      await page.waitForSelector('#empty');
      expect((await context.cookies(cliInbox)).some((c) => c.name === 'elicit_inbox')).toBe(true);
      await page.close();
    } finally {
      await client.close();
    }
  }, 90_000);
});
