/**
 * httpEntry reads a POST body once, within `maxBodyBytes` counted while it streams in, and hands
 * the SDK the parsed message: oversized bodies get 413 before anything is parsed, bodies that are
 * not JSON get the parse error, and both eras still serve what they parsed.
 */
import { describe, expect, it } from 'vitest';
import { createServer, httpEntry, LimitOptionError } from '../../src/server/index.ts';
import { MODERN_META } from '../support/kit.ts';

const app = () => createServer({ name: 'body', version: '1' }).tool('hi', {}, async () => 'hello');

function post(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      host: '127.0.0.1',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/** A body that streams `total` bytes of JSON-looking text without announcing its length. */
function streamOf(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new TextEncoder().encode(' '.repeat(65_536));
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      c.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

describe('request bodies', () => {
  it('refuses a body past maxBodyBytes with 413, announced or streamed', async () => {
    const entry = httpEntry(app(), { maxBodyBytes: 100_000 });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', pad: 'x'.repeat(200_000) });
    const announced = await entry.fetch(post(big));
    expect(announced.status).toBe(413);
    expect(((await announced.json()) as { error: { code: number } }).error.code).toBe(-32000);
    const streamed = await entry.fetch(post(streamOf(10_000_000)));
    expect(streamed.status).toBe(413);
  });

  it('answers a body that is not JSON, or empty, with a parse error', async () => {
    const entry = httpEntry(app());
    for (const body of ['{not json', '']) {
      const res = await entry.fetch(post(body));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
    }
  });

  it('serves both eras from the one parse', async () => {
    const entry = httpEntry(app());
    const modern = await entry.fetch(
      post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'hi', arguments: {}, _meta: MODERN_META },
        }),
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'hi' },
      ),
    );
    expect(await modern.text()).toContain('hello');
    const init = await entry.fetch(
      post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      ),
    );
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    await entry.close();
  });

  it('refuses a maxBodyBytes that is not a positive whole number', () => {
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(() => httpEntry(app(), { maxBodyBytes: bad })).toThrow(LimitOptionError);
  });
});
