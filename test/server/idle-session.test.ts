/**
 * What an idle 2025 session keeps, counted: functions and objects alive per session opened over
 * HTTP (initialize answered, nothing since), elicit's httpEntry beside the plain SDK wiring
 * (a McpServer and a session transport per session, the same two tools), in one process. Counts
 * from `v8.queryObjects` after a collection, never times.
 */
import { randomUUID } from 'node:crypto';
import { queryObjects } from 'node:v8';
import {
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { registeredToolsOf } from '../../src/kernel/sdk-seams.ts';
import { form, text } from '../../src/schema/index.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';

const SESSIONS = 50;

type Fetch = (req: Request) => Promise<Response>;

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'raw', version: '1' },
  },
});

async function initialize(fetch: Fetch): Promise<void> {
  const res = await fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      body: INIT,
      headers: {
        host: '127.0.0.1',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    }),
  );
  expect(res.headers.get('mcp-session-id')).toBeTruthy();
  await res.text();
}

const count = (ctor: { prototype: unknown }) =>
  queryObjects(ctor as never, { format: 'count' }) as number;

/** Functions and objects alive per idle session `fetch` opens. */
async function perSession(fetch: Fetch): Promise<{ functions: number; objects: number }> {
  // A first batch not counted: what a process makes once (caches, compiled code).
  for (let i = 0; i < 10; i++) await initialize(fetch);
  await new Promise((r) => setTimeout(r, 10));
  const functions = count(Function);
  const objects = count(Object);
  for (let i = 0; i < SESSIONS; i++) await initialize(fetch);
  await new Promise((r) => setTimeout(r, 10));
  return {
    functions: (count(Function) - functions) / SESSIONS,
    objects: (count(Object) - objects) / SESSIONS,
  };
}

function elicit(): Fetch {
  const many = 1_000_000;
  const app = createServer({ name: 'elicit', version: '1' })
    .tool('wait', {}, async (_a, ask) => (await ask.form('name', form({ name: text() }))).action)
    .tool('other', {}, () => 'x');
  const entry = httpEntry(app, { sessions: { maxSessionsPerPrincipal: many, maxSessions: many } });
  return (req) => entry.fetch(req);
}

function sdk(): Fetch {
  const server = () => {
    const s = new McpServer({ name: 'sdk', version: '1' });
    s.registerTool('wait', {}, async (ctx) => {
      const r = await ctx.mcpReq.elicitInput({
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return { content: [{ type: 'text', text: String(r.action) }] };
    });
    s.registerTool('other', {}, () => ({ content: [{ type: 'text', text: 'x' }] }));
    return s;
  };
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async (req) => {
    const sid = req.headers.get('mcp-session-id');
    if (sid !== null) return sessions.get(sid)?.handleRequest(req) ?? new Response(null);
    if (!(await isLegacyRequest(req))) return new Response(null, { status: 400 });
    const t: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, t);
        },
      });
    await server().connect(t);
    return t.handleRequest(req);
  };
}

describe('an idle 2025 session', () => {
  it('keeps no more functions nor objects than the plain SDK wiring keeps per session', async () => {
    const ours = await perSession(elicit());
    const theirs = await perSession(sdk());
    expect(ours.functions).toBeLessThanOrEqual(theirs.functions);
    expect(ours.objects).toBeLessThanOrEqual(theirs.objects);
  }, 120_000);

  it('is served by a server that shares its tools with every other session’s', () => {
    const app = createServer({ name: 'elicit', version: '1' }).tool('t', {}, () => 'x');
    const [a, b] = [app.build('legacy'), app.build('legacy')];
    expect(registeredToolsOf(a as object)).toBe(registeredToolsOf(b as object));
    // A tool registered later reaches the servers built after it.
    app.tool('u', {}, () => 'y');
    expect(Object.keys(registeredToolsOf(app.build('legacy')))).toEqual(['t', 'u']);
    // A tool registered on one built server is that server's only.
    const own = app.build('legacy');
    own.registerTool('own', {}, () => ({ content: [] }));
    expect(Object.keys(registeredToolsOf(own))).toEqual(['t', 'u', 'own']);
    expect(Object.keys(registeredToolsOf(app.build('legacy')))).toEqual(['t', 'u']);
  });
});
