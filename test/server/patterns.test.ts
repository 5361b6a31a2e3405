/**
 * A backtracking-prone pattern on the server: a 2026-07-28 request carrying a long answer for
 * it must neither stall that request nor any other request on the same server. The server runs
 * in its own process so that a stalled event loop shows up as a missing answer here.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callModern } from '../support/kit.ts';
import { freePort, startProcess, stop } from '../support/processes.ts';

/** Hang guard, not a speed check: with a backtracking matcher the server stalls for hours. */
const WATCHDOG_MS = 15_000;

let server: ChildProcess;
let url: string;
beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  server = await startProcess('test/fixtures/pattern-server.ts', [String(port)]);
});
afterAll(() => stop(server));

async function call(name: string, params: Record<string, unknown> = {}) {
  const reply = await callModern(
    url,
    name,
    { arguments: {}, ...params },
    { signal: AbortSignal.timeout(WATCHDOG_MS) },
  );
  return reply.result as {
    resultType?: string;
    content?: { text: string }[];
    inputRequests?: Record<string, { params: { message: string } }>;
  };
}

describe('a backtracking-prone pattern on a 2026-07-28 server', () => {
  it('a 41-letter answer is judged, and another request is answered meanwhile', async () => {
    const answer = `${'a'.repeat(41)}1`;
    const [hostile, ping] = await Promise.all([
      call('sign', { inputResponses: { name: { action: 'accept', content: { name: answer } } } }),
      call('ping'),
    ]);
    expect(ping.content).toEqual([{ type: 'text', text: 'pong' }]);
    // The answer does not match: the form is asked again with the reason.
    expect(hostile.resultType).toBe('input_required');
    expect(hostile.inputRequests?.name?.params.message).toContain('pattern ^([A-Za-z]+ ?)+$');
  });
  it('a matching answer completes the call', async () => {
    const r = await call('sign', {
      inputResponses: { name: { action: 'accept', content: { name: 'Ada Lovelace' } } },
    });
    expect(r.content).toEqual([{ type: 'text', text: 'signed Ada Lovelace' }]);
  });
});
