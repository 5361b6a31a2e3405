/**
 * A 2026-07-28 host with the tasks extension in front of a plain SDK v1 server (2025 only): the
 * call the gateway holds toward the server is offered as a task. The host (elicit/client with
 * tasks on) follows it with tasks/get; the question the server pushes parks the task in
 * input_required, the answer goes in with tasks/update, and the task completes with the
 * server's result. A host without the extension still gets input_required rounds.
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachElicitation, scriptedRenderer } from '../../src/client/index.ts';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import type { Listening } from '../../src/server/index.ts';

const root = join(import.meta.dirname, '..', '..');
let gateway: Gateway;
let front: Listening;

beforeAll(async () => {
  gateway = await createGateway({
    transport: () =>
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'test', 'fixtures', 'v1-server.ts')],
        stderr: 'ignore',
      }),
    era: 'legacy',
  });
  front = await gateway.listen();
}, 30_000);
afterAll(async () => {
  await front?.close();
  await gateway?.close();
});

async function host(tasks: boolean) {
  const client = new Client({ name: 'host', version: '1' });
  const elicit = attachElicitation(client, {
    renderer: scriptedRenderer({
      answers: [{ action: 'accept', content: { name: 'Ada', guests: 4 } }],
    }),
    tasks: tasks ? { limits: { minPollMs: 200, defaultPollMs: 200 } } : false,
  });
  client.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
  await client.connect(new StreamableHTTPClientTransport(front.url));
  return { client, elicit };
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('SDK v1 server (2025 only) → gateway → 2026-07-28 host with the tasks extension', () => {
  it('the held call is a task: followed, its question answered with tasks/update', async () => {
    const { client, elicit } = await host(true);
    const statuses: string[] = [];
    const r = await elicit.callTool(
      { name: 'book', arguments: { restaurant: 'Chez Elicit' } },
      { onTask: (state) => statuses.push(state.status) },
    );
    expect(textOf(r)).toBe('booked 4 for Ada at Chez Elicit');
    expect(statuses[0]).toBe('working');
    expect(statuses).toContain('input_required');
    expect(statuses.at(-1)).toBe('completed');
    expect(gateway.heldCalls).toBe(0);
    await client.close();
  }, 30_000);

  it('a host without the extension gets input_required rounds, as before', async () => {
    const { client, elicit } = await host(false);
    const statuses: string[] = [];
    const r = await elicit.callTool(
      { name: 'book', arguments: { restaurant: 'Nowhere' } },
      { onTask: (state) => statuses.push(state.status) },
    );
    expect(textOf(r)).toBe('booked 4 for Ada at Nowhere');
    expect(statuses).toEqual([]);
    await client.close();
  }, 30_000);
});
