/**
 * The gateway on real parts: a plain SDK v1 client (2025 sessions, pushed elicitation) in front
 * of the elicit demo server pinned to 2026-07-28 (input_required rounds), over HTTP both ways.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoServer } from '../../src/demo/server.ts';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import { form, integer, text } from '../../src/schema/index.ts';
import { httpEntry, type Listening, listen } from '../../src/server/index.ts';

type Params = Record<string, unknown> & { message: string; mode?: string };
type Reply = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

let upstream: Listening;
let gateway: Gateway;
let front: Listening;
let serverTaskStopped = false;

beforeAll(async () => {
  const app = demoServer();
  // Three rounds of input, one question each: the gateway runs every round upstream.
  app.tool('three_rounds', { description: 'asks three times' }, async (_args, ask) => {
    const a = await ask.form('a', form({ a: text() }), { message: 'first?' });
    const b = await ask.form('b', form({ b: integer() }), { message: 'second?' });
    const c = await ask.confirm('c', 'third?');
    if (a.action !== 'accept' || b.action !== 'accept') return 'stopped';
    return `${a.content.a}/${b.content.b}/${c}`;
  });
  // A task that runs until it is cancelled, and says when it was.
  app.tool(
    'long_task',
    { description: 'runs until cancelled', task: 'optional' },
    async (_args, _ask, ctx) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20_000);
        ctx.mcpReq.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            serverTaskStopped = true;
            resolve();
          },
          { once: true },
        );
      });
      return 'ran to the end';
    },
  );
  upstream = await listen(httpEntry(app));
  gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    era: 'modern',
  });
  front = await gateway.listen();
});
afterAll(async () => {
  await front?.close();
  await gateway?.close();
  await upstream?.close();
});

async function v1Host(answer: (p: Params) => Reply, revision?: string) {
  const client = new V1Client(
    { name: 'v1-host', version: '1' },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  const seen: Params[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    const p = req.params as unknown as Params;
    seen.push(p);
    return answer(p) as never;
  });
  const completions: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completions.push(n.params.elicitationId);
  });
  const transport = new V1Http(front.url);
  if (revision !== undefined) {
    // The v1 SDK offers its latest revision; a host that only knows an older one offers that.
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const m = message as { method?: string; params?: { protocolVersion?: string } };
      if (m.method === 'initialize' && m.params !== undefined) m.params.protocolVersion = revision;
      return send(message, options);
    };
  }
  await client.connect(transport);
  return { client, seen, completions };
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('SDK v1 host (2025-11-25) → gateway → demo server on 2026-07-28', () => {
  it('lists what the server has, and the server is 2026-07-28', async () => {
    const { client } = await v1Host(() => ({ action: 'cancel' }));
    expect(gateway.upstream.revision).toBe('2026-07-28');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('book_trip');
    const prompts = await client.listPrompts();
    expect(prompts.prompts.map((p) => p.name)).toEqual(['trip_brief']);
    await client.close();
  });

  it('a form with every field kind, pushed to the host and answered', async () => {
    const { client, seen } = await v1Host(() => ({
      action: 'accept',
      content: {
        name: 'Ada',
        mail: 'ada@example.com',
        when: '2026-12-01',
        seat: 'aisle',
        bags: 2,
        extras: ['wifi'],
        insurance: true,
      },
    }));
    const r = await client.callTool({ name: 'book_trip', arguments: { city: 'Lisbon' } });
    expect(textOf(r)).toMatch(
      /^Booked BK-\d+: Ada to Lisbon on 2026-12-01, aisle seat, 2 bag\(s\), extras: wifi, insured\./,
    );
    expect(seen).toHaveLength(1);
    const props = (
      (seen[0] as Params).requestedSchema as { properties: Record<string, { type: string }> }
    ).properties;
    expect(Object.keys(props)).toEqual([
      'name',
      'mail',
      'when',
      'seat',
      'bags',
      'extras',
      'insurance',
    ]);
    expect(props.extras?.type).toBe('array');
    await client.close();
  });

  it('three rounds upstream are three questions downstream', async () => {
    const answers = [{ a: 'x' }, { b: 7 }, { value: true }];
    const { client, seen } = await v1Host((p) => {
      const i = seen.length - 1;
      const content = answers[i] as Record<string, unknown>;
      if (i === 2) {
        const field = Object.keys((p.requestedSchema as { properties: object }).properties)[0];
        return { action: 'accept', content: { [field as string]: true } };
      }
      return { action: 'accept', content };
    });
    const r = await client.callTool({ name: 'three_rounds', arguments: {} });
    expect(textOf(r)).toBe('x/7/true');
    expect(seen.map((p) => p.message)).toEqual(['first?', 'second?', 'third?']);
    await client.close();
  });

  it('a URL-mode ask: the host consents, and is told when the server stops asking', async () => {
    const { client, seen, completions } = await v1Host(() => ({ action: 'accept' }));
    const r = await client.callTool({
      name: 'open_docs',
      arguments: { url: 'https://docs.example.com/start' },
    });
    expect(textOf(r)).toBe('You opened the page.');
    expect(seen[0]).toMatchObject({ mode: 'url', url: 'https://docs.example.com/start' });
    expect(typeof seen[0]?.elicitationId).toBe('string');
    expect(completions).toEqual([seen[0]?.elicitationId]);
    await client.close();
  });

  it('the task tool runs through, its question asked on the way, progress forwarded', async () => {
    const { client, seen } = await v1Host((p) => {
      const field = Object.keys((p.requestedSchema as { properties: object }).properties)[0];
      return { action: 'accept', content: { [field as string]: true } };
    });
    const progress: number[] = [];
    const r = await client.callTool({ name: 'migrate_data', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(textOf(r)).toBe('Copied 6 chunks and switched over to the new database.');
    expect(seen).toHaveLength(1);
    // The server's progress (chunks 1-6) reaches the host on its own token, always rising.
    expect(progress.at(-1)).toBe(6);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]).toBeGreaterThan(progress[i - 1] as number);
    await client.close();
  });

  it('the task tool as a 2025-11-25 task: the server’s task followed, its question asked through tasks/result', async () => {
    const { client, seen } = await v1Host((p) => {
      const field = Object.keys((p.requestedSchema as { properties: object }).properties)[0];
      return { action: 'accept', content: { [field as string]: true } };
    });
    const tools = await client.listTools();
    expect(tools.tools.find((t) => t.name === 'migrate_data')?.execution?.taskSupport).toBe(
      'optional',
    );
    const statuses: string[] = [];
    let taskId = '';
    let result: unknown;
    for await (const m of client.experimental.tasks.callToolStream(
      { name: 'migrate_data', arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (m.type === 'taskCreated') taskId = m.task.taskId;
      else if (m.type === 'taskStatus') statuses.push(m.task.status);
      else if (m.type === 'result') result = m.result;
      else throw m.error;
    }
    expect(textOf(result)).toBe('Copied 6 chunks and switched over to the new database.');
    expect(seen).toHaveLength(1);
    // The status the host saw while the question was open depends on when it polled.
    expect(statuses.length).toBeGreaterThan(0);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    await client.close();
  }, 30_000);

  it('cancelling the host’s task cancels the server’s', async () => {
    const { client } = await v1Host(() => ({ action: 'cancel' }));
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'long_task', arguments: {}, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('working');
    await new Promise((r) => setTimeout(r, 300));
    await client.experimental.tasks.cancelTask(taskId);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    for (let i = 0; i < 100 && !serverTaskStopped; i++) await new Promise((r) => setTimeout(r, 50));
    expect(serverTaskStopped).toBe(true);
    await client.close();
  }, 30_000);

  it('a 2025-06-18 host gets a multi-select form converted, and its answer mapped back', async () => {
    const { client, seen } = await v1Host(
      () => ({
        action: 'accept',
        content: {
          name: 'Bo',
          mail: 'bo@example.com',
          when: '2026-12-02',
          seat: 'window',
          bags: 0,
          'extras.wifi': true,
          'extras.lounge': true,
          insurance: false,
        },
      }),
      '2025-06-18',
    );
    const r = await client.callTool({ name: 'book_trip', arguments: { city: 'Oslo' } });
    expect(textOf(r)).toMatch(
      /Bo to Oslo on 2026-12-02, window seat, 0 bag\(s\), extras: wifi, lounge\. Ticket goes to bo@example.com/,
    );
    const props = ((seen[0] as Params).requestedSchema as { properties: Record<string, unknown> })
      .properties;
    expect(JSON.stringify(props)).not.toContain('"array"');
    expect(Object.keys(props)).toContain('extras.wifi');
    await client.close();
  });
});
