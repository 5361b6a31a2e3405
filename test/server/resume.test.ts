/**
 * SSE resumption on legacy sessions (SEP-1699), with a raw fetch client: a call's stream starts
 * with a priming event (an id, `retry`, empty data); when the server closes the stream mid-call
 * the client reconnects with GET + Last-Event-ID and receives everything it missed, then the rest.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  type HttpOptions,
  httpEntry,
  LimitOptionError,
  type Listening,
  listen,
} from '../../src/server/index.ts';

interface SseEvent {
  readonly id?: string;
  readonly retry?: number;
  readonly data: string;
}

/** Reads SSE events from a response until it ends or `until` says stop. */
async function readEvents(
  res: Response,
  until: (e: SseEvent) => boolean = () => false,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: { id?: string; retry?: number; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = val;
        else if (field === 'retry') event.retry = Number(val);
        else if (field === 'data') event.data += val;
      }
      events.push(event);
      if (until(event)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

const messages = (events: SseEvent[]) =>
  events
    .filter((e) => e.data.trim() !== '')
    .map((e) => JSON.parse(e.data) as Record<string, unknown>);

/** A raw 2025 client: initialize, then POSTs and GETs on the session. */
async function rawSession(url: URL, revision = '2025-11-25') {
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: revision,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
  const sid = init.headers.get('mcp-session-id') as string;
  await init.body?.cancel();
  const headers = { ...base, 'mcp-session-id': sid, 'mcp-protocol-version': revision };
  const post = (body: unknown) =>
    fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).body?.cancel();
  return {
    sid,
    call: (id: number, name: string) =>
      post({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: {}, _meta: { progressToken: `p${id}` } },
      }),
    post,
    resume: (lastEventId: string) =>
      fetch(url, {
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': sid,
          'mcp-protocol-version': revision,
          'last-event-id': lastEventId,
        },
      }),
  };
}

function pollingApp() {
  return createServer({ name: 'poll', version: '1' })
    .tool('ask_now', {}, async (_args, ask) => {
      const r = await ask.form('name', form({ name: text() }), { message: 'Name?' });
      return r.action;
    })
    .tool('poll', {}, async (_args, _ask, ctx) => {
      // Mid-call the server ends the stream; what follows waits in the event store.
      ctx.http?.closeSSE?.();
      await sleep(50);
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined)
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, message: 'half way' },
        });
      return 'polled';
    })
    .tool('ask_later', {}, async (_args, ask, ctx) => {
      ctx.http?.closeSSE?.();
      const r = await ask.form('name', form({ name: text() }), { message: 'Name?' });
      return r.action === 'accept' ? `hello ${r.content.name}` : r.action;
    });
}

const servers: Listening[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of servers.splice(0)) await s.close();
});

async function serve(options: HttpOptions = {}): Promise<URL> {
  const server = await listen(httpEntry(pollingApp(), options));
  servers.push(server);
  return server.url;
}

describe('SSE resumption on 2025-11-25 sessions', () => {
  it('starts the call stream with a priming event and retry, and replays the rest after Last-Event-ID', async () => {
    const url = await serve({ retryMs: 250 });
    const s = await rawSession(url);
    const res = await s.call(1, 'poll');
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const first = await readEvents(res);
    // The server closed the stream: only the priming event came.
    expect(first).toHaveLength(1);
    const priming = first[0] as SseEvent;
    expect(priming.id).toMatch(/^\d+\.\d+$/);
    expect(priming.retry).toBe(250);
    expect(priming.data.trim()).toBe('');
    await sleep(100);
    const again = await s.resume(priming.id as string);
    expect(again.status).toBe(200);
    const rest = await readEvents(again, (e) => e.data.includes('"result"'));
    expect(messages(rest)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p1', progress: 1, message: 'half way' },
      },
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'polled' }] } },
    ]);
    // Every replayed event has an id to resume from.
    expect(rest.every((e) => e.id !== undefined)).toBe(true);
  });

  it('resumes a call that asks after its stream closed: the request, the answer, then the result', async () => {
    const url = await serve();
    const s = await rawSession(url);
    const [priming] = await readEvents(await s.call(7, 'ask_later'));
    const again = await s.resume(priming?.id as string);
    let answered = false;
    const events = await readEvents(again, (e) => {
      if (e.data.includes('elicitation/create') && !answered) {
        answered = true;
        const request = JSON.parse(e.data) as { id: number };
        void s
          .post({
            jsonrpc: '2.0',
            id: request.id,
            result: { action: 'accept', content: { name: 'Ada' } },
          })
          .then((r) => r.body?.cancel());
      }
      return e.data.includes('"result"') && e.data.includes('"id":7');
    });
    const got = messages(events);
    expect(got[0]?.method).toBe('elicitation/create');
    expect(got.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'hello Ada' }] },
    });
  });

  it('keeps no events of the initialize stream: resuming it is refused, and the session goes on', async () => {
    const url = await serve();
    const init = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    const sid = init.headers.get('mcp-session-id') as string;
    const events = await readEvents(init);
    const priming = events.find((e) => e.data.trim() === '');
    expect(priming?.id).toMatch(/^\d+\.\d+$/);
    expect(messages(events)).toMatchObject([{ id: 0, result: { protocolVersion: '2025-11-25' } }]);
    const again = await fetch(url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': priming?.id as string,
      },
    });
    expect(again.status).toBe(400);
    await again.body?.cancel();
    // A call on the same session is resumable as always.
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    };
    await (
      await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).body?.cancel();
    const call = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'poll', arguments: {} },
      }),
    });
    const [callPriming] = await readEvents(call);
    await sleep(100);
    const resumed = await fetch(url, {
      method: 'GET',
      headers: { ...headers, 'last-event-id': callPriming?.id as string },
    });
    expect(resumed.status).toBe(200);
    const rest = await readEvents(resumed, (e) => e.data.includes('"result"'));
    expect(messages(rest).at(-1)).toMatchObject({
      id: 1,
      result: { content: [{ text: 'polled' }] },
    });
  });

  it("refuses an event id it never issued, and another session's ids", async () => {
    const url = await serve();
    const a = await rawSession(url);
    const b = await rawSession(url);
    const [priming] = await readEvents(await a.call(1, 'poll'));
    for (const res of [await b.resume(priming?.id as string), await a.resume('99.0')]) {
      expect(res.status).toBe(400);
      await res.body?.cancel();
    }
  });

  it('sends no priming event to a 2025-06-18 session', async () => {
    const url = await serve();
    const s = await rawSession(url, '2025-06-18');
    const events = await readEvents(await s.call(1, 'poll'));
    // No empty-data event (older clients cannot take one); closeSSE is not offered either.
    expect(events.some((e) => e.data.trim() === '')).toBe(false);
    expect(messages(events).at(-1)).toMatchObject({
      id: 1,
      result: { content: [{ text: 'polled' }] },
    });
  });

  it('a request whose MCP-Protocol-Version differs still gets priming, and its hang-up still cancels', async () => {
    const app = pollingApp();
    const server = await listen(httpEntry(app));
    servers.push(server);
    const s = await rawSession(server.url);
    const abort = new AbortController();
    const res = await fetch(server.url, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': s.sid,
        // A supported revision older than the session's, as some clients send.
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'ask_now', arguments: {} },
      }),
    });
    const events = await readEvents(res, (e) => e.data.includes('elicitation/create'));
    expect(events[0]?.id).toMatch(/^\d+\.\d+$/);
    expect(events[0]?.retry).toBe(1000);
    expect(app.pending.size).toBe(1);
    abort.abort();
    await expect.poll(() => app.pending.size).toBe(0);
  });

  it('the SDK client reconnects on its own and receives the result', async () => {
    const url = await serve({ retryMs: 50 });
    const client = new Client(
      { name: 'sdk', version: '1' },
      { capabilities: {}, versionNegotiation: { mode: 'legacy' } },
    );
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'poll', arguments: {} },
      { onprogress: (p) => void progress.push(p.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'polled' }]);
    expect(progress).toEqual([1]);
  });

  it('refuses a retryMs or event limit that is not a positive whole number', () => {
    const app = pollingApp();
    expect(() => httpEntry(app, { retryMs: 0 })).toThrow(LimitOptionError);
    expect(() => httpEntry(app, { events: { maxStreams: -1 } })).toThrow(/events\.maxStreams/);
  });
});
