/**
 * Denial of service on the server: asks nobody answers, clients that vanish mid-call, and
 * floods of sessions. End to end over real HTTP, with the plain SDK client where a well-behaved
 * client is enough and raw sockets where the client misbehaves.
 */
import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectApp } from '../../src/connect/app.ts';
import { devLogin } from '../../src/connect/login.ts';
import { form, text } from '../../src/schema/index.ts';
import {
  AskAbandonedError,
  createServer,
  type ElicitServer,
  type HttpOptions,
  httpEntry,
  LimitOptionError,
  type Listening,
  listen,
} from '../../src/server/index.ts';
import { TOO_MANY_PENDING_CODE } from '../../src/server/pending.ts';
import { connectState, MODERN_META, modernBody, modernHeaders, readReply } from '../support/kit.ts';
import { freePort, startProcess, stop } from '../support/processes.ts';
import { openSession, type RawReply, rawCall, rawInitialize } from '../support/raw-mcp.ts';

const NAME = form({ name: text() });

/** A server whose `wait` tool asks once and records how the ask ended. */
function waitingApp(limits: Parameters<typeof createServer>[0]['limits'] = {}) {
  const ended: unknown[] = [];
  const app = createServer({ name: 'dos', version: '1', limits })
    .tool('wait', {}, async (_a, ask) => {
      try {
        const r = await ask.form('name', NAME, { message: 'Name?' });
        ended.push(r.action);
        return r.action;
      } catch (error) {
        ended.push(error);
        throw error;
      }
    })
    .tool('hello', {}, () => 'hi');
  return { app, ended };
}

/** The `x-flood-user` header stands in for a verified token: one principal per value. */
const byHeader: HttpOptions['authInfo'] = (req) => {
  const user = req.headers.get('x-flood-user');
  return user === null
    ? undefined
    : { token: user, clientId: user, scopes: [], extra: { iss: 'test', sub: user } };
};

const servers: Listening[] = [];
const clients: Client[] = [];
const replies: RawReply[] = [];
afterEach(async () => {
  for (const r of replies.splice(0)) r.hangUp();
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of servers.splice(0)) await s.close();
});

async function serve(app: ElicitServer, options: HttpOptions = {}): Promise<URL> {
  const server = await listen(httpEntry(app, { authInfo: byHeader, ...options }));
  servers.push(server);
  return server.url;
}

/** A 2025-11-25 SDK client over HTTP that never answers an elicitation. */
async function silentClient(url: URL, user?: string) {
  const client = new Client(
    { name: 'silent', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
  );
  let asked = 0;
  client.setRequestHandler('elicitation/create', () => {
    asked++;
    return new Promise<never>(() => {});
  });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: user === undefined ? undefined : { headers: { 'x-flood-user': user } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport, asked: () => asked };
}

describe('caps on waiting asks', () => {
  it('refuses asks past the per-session, per-principal and server caps with a JSON-RPC error', async () => {
    const { app } = waitingApp({
      maxPendingPerSession: 2,
      maxPendingPerPrincipal: 3,
      maxPending: 4,
    });
    const url = await serve(app);
    const a1 = await openSession(url, 'alice');
    const a2 = await openSession(url, 'alice');
    const b1 = await openSession(url, 'bob');
    let id = 1;
    const call = async (sid: string, user: string) => {
      const r = await rawCall(url, sid, 'wait', id++, user);
      replies.push(r);
      return r;
    };
    const scopeOf = (r: RawReply) => (r.error?.data as { scope?: string } | undefined)?.scope;

    expect((await call(a1, 'alice')).kind).toBe('asked');
    expect((await call(a1, 'alice')).kind).toBe('asked');
    const perSession = await call(a1, 'alice');
    expect(perSession.kind).toBe('error');
    expect(perSession.error?.code).toBe(TOO_MANY_PENDING_CODE);
    expect(perSession.error?.data).toMatchObject({ code: 'ELICIT_TOO_MANY_PENDING', limit: 2 });
    expect(scopeOf(perSession)).toBe('session');
    expect(perSession.error?.message).toContain('maxPendingPerSession');

    expect((await call(a2, 'alice')).kind).toBe('asked');
    expect(scopeOf(await call(a2, 'alice'))).toBe('principal');

    expect((await call(b1, 'bob')).kind).toBe('asked');
    expect(scopeOf(await call(b1, 'bob'))).toBe('process');
    expect(app.pending.size).toBe(4);

    // Hanging up frees the slots: the next asks wait again.
    for (const r of replies.splice(0)) r.hangUp();
    await expect.poll(() => app.pending.size).toBe(0);
    expect((await call(b1, 'bob')).kind).toBe('asked');
  });

  it('refuses limits that are not positive whole numbers', () => {
    expect(() => createServer({ name: 'x', version: '1', limits: { maxPending: 0 } })).toThrow(
      LimitOptionError,
    );
    expect(() =>
      httpEntry(createServer({ name: 'x', version: '1' }), {
        sessions: { maxSessionsPerPrincipal: Number.NaN },
      }),
    ).toThrow(/sessions\.maxSessionsPerPrincipal must be a positive whole number/);
  });
});

describe('2026-07-28: a request waiting for a URL step holds a slot', () => {
  const connect = createConnectApp({
    baseUrl: 'http://127.0.0.1:1',
    ...connectState(),
    login: devLogin({ fixedPrincipal: 'local' }),
    providers: {},
  });
  const app = createServer({
    name: 'dos',
    version: '1',
    limits: { maxPending: 1 },
    connect: { app: connect },
  }).tool(
    'set_key',
    {},
    async (_a, ask) => (await ask.secret('api_key', { label: 'API key', fresh: true })).action,
  );
  const entry = httpEntry(app);
  const META = {
    ...MODERN_META,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
  };
  const post = async (params: Record<string, unknown>, signal?: AbortSignal) =>
    (await readReply(
      await entry.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          signal,
          headers: modernHeaders('set_key', { host: 'localhost' }),
          body: modernBody('set_key', { arguments: {}, ...params }, 1, META),
        }),
      ),
    )) as {
      result?: { requestState?: string };
      error?: { code: number; data?: unknown };
    };
  /** Round 2 of set_key: the person accepted the link, so the server waits for the page. */
  const accepted = async (signal?: AbortSignal) => {
    const first = await post({});
    return post(
      {
        requestState: first.result?.requestState,
        inputResponses: { '~secret:api_key': { action: 'accept' } },
      },
      signal,
    );
  };

  it('refuses a second wait past the cap, and frees the slot when the first client goes', async () => {
    const abort = new AbortController();
    const waiting = accepted(abort.signal).catch(() => 'aborted');
    await expect.poll(() => app.pending.size).toBe(1);
    const refused = await accepted();
    expect(refused.error).toMatchObject({
      code: TOO_MANY_PENDING_CODE,
      data: { code: 'ELICIT_TOO_MANY_PENDING', scope: 'process', limit: 1 },
    });
    abort.abort();
    await waiting;
    await expect.poll(() => app.pending.size).toBe(0);
  });
});

describe('a client that goes away ends the wait', () => {
  it('hanging up the call (SDK client closed) rejects the ask with AskAbandonedError', async () => {
    const { app, ended } = waitingApp();
    const url = await serve(app);
    const { client, asked } = await silentClient(url);
    const call = client.callTool({ name: 'wait', arguments: {} }).catch(() => 'closed');
    await expect.poll(asked).toBe(1);
    await client.close();
    await call;
    await expect.poll(() => ended.length).toBe(1);
    expect(ended[0]).toBeInstanceOf(AskAbandonedError);
    expect((ended[0] as AskAbandonedError).code).toBe('ELICIT_ASK_ABANDONED');
    expect(app.pending.size).toBe(0);
  });

  it('ending the session (DELETE) rejects the ask with AskAbandonedError', async () => {
    const { app, ended } = waitingApp();
    const url = await serve(app);
    const { client, transport, asked } = await silentClient(url);
    const call = client.callTool({ name: 'wait', arguments: {} }).catch(() => 'ended');
    await expect.poll(asked).toBe(1);
    await transport.terminateSession();
    await expect.poll(() => ended.length).toBe(1);
    expect(ended[0]).toBeInstanceOf(AskAbandonedError);
    expect(app.pending.size).toBe(0);
    await client.close();
    await call;
  });

  it('a raw client hanging up mid-call frees its ask', async () => {
    const { app, ended } = waitingApp();
    const url = await serve(app);
    const sid = await openSession(url, 'mallory');
    for (let i = 1; i <= 20; i++) {
      const r = await rawCall(url, sid, 'wait', i, 'mallory');
      expect(r.kind).toBe('asked');
      r.hangUp();
    }
    await expect.poll(() => ended.length).toBe(20);
    expect(ended.every((e) => e instanceof AskAbandonedError)).toBe(true);
    expect(app.pending.size).toBe(0);
  });

  it('hanging up one POST cancels exactly its call, not the others of its session', async () => {
    const { app, ended } = waitingApp();
    const url = await serve(app);
    const sid = await openSession(url, 'mallory');
    const calls = [];
    for (let i = 1; i <= 3; i++) calls.push(await rawCall(url, sid, 'wait', i, 'mallory'));
    expect(calls.map((c) => c.kind)).toEqual(['asked', 'asked', 'asked']);
    calls[1]?.hangUp();
    await expect.poll(() => ended.length).toBe(1);
    expect(app.pending.size).toBe(2);
    calls[0]?.hangUp();
    calls[2]?.hangUp();
    await expect.poll(() => ended.length).toBe(3);
    expect(app.pending.size).toBe(0);
  });
});

describe('session floods', () => {
  it("1000 initialize calls from one principal leave another principal's session working", {
    timeout: 120_000,
  }, async () => {
    const { app } = waitingApp();
    const entry = httpEntry(app, { authInfo: byHeader });
    const server = await listen(entry);
    servers.push(server);
    const alice = new Client(
      { name: 'alice', version: '1' },
      { versionNegotiation: { mode: 'legacy' } },
    );
    await alice.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { 'x-flood-user': 'alice' } },
      }),
    );
    clients.push(alice);
    expect(await alice.callTool({ name: 'hello', arguments: {} })).toMatchObject({
      content: [{ text: 'hi' }],
    });
    for (let i = 0; i < 1000; i++) await rawInitialize(server.url, 'mallory');
    expect(await alice.callTool({ name: 'hello', arguments: {} })).toMatchObject({
      content: [{ text: 'hi' }],
    });
    // Mallory's flood only ever displaced Mallory's own sessions.
    expect(entry.sessions).toBe(1 + 32);
  });

  it('a flood from the same principal closes its unused sessions first', {
    timeout: 120_000,
  }, async () => {
    const { app } = waitingApp();
    const url = await serve(app);
    const mine = new Client(
      { name: 'me', version: '1' },
      { versionNegotiation: { mode: 'legacy' } },
    );
    await mine.connect(new StreamableHTTPClientTransport(url));
    clients.push(mine);
    await mine.callTool({ name: 'hello', arguments: {} });
    for (let i = 0; i < 1000; i++) await rawInitialize(url);
    expect(await mine.callTool({ name: 'hello', arguments: {} })).toMatchObject({
      content: [{ text: 'hi' }],
    });
  });

  it("at the global cap new sessions are refused, never other principals' active ones closed", async () => {
    const { app } = waitingApp();
    const url = await serve(app, { sessions: { maxSessions: 3 } });
    const held: string[] = [];
    for (const user of ['a', 'b', 'c']) {
      const sid = await openSession(url, user);
      held.push(sid);
      const r = await rawCall(url, sid, 'hello', 1, user);
      r.hangUp();
      expect(r.kind).toBe('result');
    }
    await expect(openSession(url, 'd')).rejects.toThrow(/initialize failed: 503/);
    for (const [i, user] of ['a', 'b', 'c'].entries()) {
      const r = await rawCall(url, held[i] as string, 'hello', 2, user);
      r.hangUp();
      expect(r.kind).toBe('result');
    }
  });

  it('a principal whose sessions are all busy is refused a new one (429)', async () => {
    const { app } = waitingApp();
    const url = await serve(app, { sessions: { maxSessionsPerPrincipal: 2 } });
    for (const [i, sid] of [await openSession(url, 'a'), await openSession(url, 'a')].entries()) {
      const r = await rawCall(url, sid, 'wait', i + 1, 'a');
      replies.push(r);
      expect(r.kind).toBe('asked');
    }
    await expect(rawInitialize(url, 'a')).rejects.toThrow(/initialize failed: 429/);
    // Another principal is not affected.
    expect(await rawInitialize(url, 'b')).toMatch(/^[0-9a-f-]{36}$/);
    // Once a call ends, that session is idle and makes room.
    replies.shift()?.hangUp();
    await expect.poll(() => app.pending.size).toBe(1);
    expect(await rawInitialize(url, 'a')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a session id is not found for another principal', async () => {
    const { app } = waitingApp();
    const url = await serve(app);
    const sid = await openSession(url, 'alice');
    const stolen = await rawCall(url, sid, 'hello', 1, 'mallory');
    stolen.hangUp();
    expect(stolen.status).toBe(404);
    const own = await rawCall(url, sid, 'hello', 1, 'alice');
    own.hangUp();
    expect(own.kind).toBe('result');
  });
});

describe('a flood against a 256 MB heap (child process)', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    await stop(child);
  });

  it('refuses asks past the caps, survives, and keeps its heap bounded', {
    timeout: 240_000,
  }, async () => {
    const port = await freePort();
    child = await startProcess(
      'test/fixtures/flood-server.ts',
      [String(port)],
      ['--max-old-space-size=256', '--expose-gc'],
    );
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const sessions: { sid: string; user: string }[] = [];
    for (let u = 0; u < 10; u++)
      for (let k = 0; k < 4; k++)
        sessions.push({ sid: await openSession(url, `u${u}`), user: `u${u}` });
    const counts = { asked: 0, refused: 0, other: 0 };
    let dead = false;
    let next = 1;
    const held: RawReply[] = [];
    // 1 100 calls kept open (never answered), then 10 000 more that hang up at the first reply.
    const HELD = 1100;
    const TOTAL = 11_100;
    async function worker() {
      while (!dead && next <= TOTAL) {
        const i = next++;
        const s = sessions[i % sessions.length] as { sid: string; user: string };
        const r = await rawCall(url, s.sid, 'wait', i, s.user);
        if (r.kind === 'dead') dead = true;
        else if (r.kind === 'asked') counts.asked++;
        else if (r.kind === 'error' && r.error?.code === TOO_MANY_PENDING_CODE) counts.refused++;
        else counts.other++;
        if (i <= HELD && r.kind === 'asked') held.push(r);
        else r.hangUp();
      }
    }
    try {
      await Promise.all(Array.from({ length: 32 }, worker));
      expect(dead).toBe(false);
      expect(child.exitCode).toBe(null);
      expect(counts.other).toBe(0);
      expect(counts.refused).toBeGreaterThan(0);
      const stats = async () => {
        const r = await rawCall(url, sessions[0]?.sid as string, 'heap', 0, 'u0');
        r.hangUp();
        const text = (r.result as { content: { text: string }[] }).content[0]?.text as string;
        return JSON.parse(text) as { heapUsed: number; pending: number; sessions: number };
      };
      const full = await stats();
      // Every waiting ask is one of the held calls, within the server's cap.
      expect(full.pending).toBeLessThanOrEqual(1024);
      expect(full.heapUsed / 1_048_576).toBeLessThan(128);
      for (const r of held.splice(0)) r.hangUp();
      await expect.poll(async () => (await stats()).pending, { timeout: 20_000 }).toBe(0);
    } finally {
      for (const r of held) r.hangUp();
    }
  });
});
