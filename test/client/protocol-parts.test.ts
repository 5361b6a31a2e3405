/**
 * Sampling, roots and 2025-11-25 task-augmented tool calls through elicit/client alone (no
 * host), against `@modelcontextprotocol/server-everything` over stdio: the person's reply
 * reaches the server as the model's answer; roots are listed and a change is announced with
 * `notifications/roots/list_changed` (the server asks again and says how many it got); a tool
 * that requires a task is called as one, its question answered on the way, its status reported.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachElicitation,
  attachSampling,
  type ElicitClient,
  needsTask,
  RootInvalid,
  RootList,
  type SamplingView,
  scriptedRenderer,
  type TaskState,
} from '../../src/client/index.ts';

const everything = join(
  process.cwd(),
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const first = mkdtempSync(join(tmpdir(), 'elicit-root-a-'));
const second = mkdtempSync(join(tmpdir(), 'elicit-root-b-'));

const text = (result: unknown) =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((c) => c.text ?? '')
    .join('\n');

describe('elicit/client: sampling, roots and 2025 tool tasks', () => {
  const client = new Client({ name: 'protocol-parts', version: '1.0.0' });
  const roots = new RootList([{ uri: pathToFileURL(first).href, name: 'first' }]);
  const logs: string[] = [];
  const asked: SamplingView[] = [];
  let elicit: ElicitClient;

  beforeAll(async () => {
    elicit = attachElicitation(client, {
      renderer: scriptedRenderer({
        answers: [
          {
            match: 'multiple interpretations',
            action: 'accept',
            content: { interpretation: 'snake' },
          },
        ],
      }),
      modes: { form: true },
    });
    attachSampling(client, {
      reply: async (view) => {
        asked.push(view);
        return 'teal';
      },
      model: 'test person',
    });
    roots.attach(client);
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(String((n.params as { data?: unknown }).data));
    });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'] }),
    );
  }, 30_000);
  afterAll(() => client.close());

  const waitForLog = async (text: string) => {
    for (let i = 0; i < 100 && !logs.some((l) => l.includes(text)); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(logs).toContainEqual(expect.stringContaining(text));
  };

  it('answers sampling with the reply the person wrote, having shown the request', async () => {
    const result = await client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'Name a colour.' },
    });
    expect(text(result)).toContain('teal');
    expect(text(result)).toContain('test person');
    expect(asked[0]?.lines.join('\n')).toContain('Name a colour.');
  }, 30_000);

  it('lists roots, and a change reaches the server through roots/list_changed', async () => {
    await waitForLog('Roots updated: 1 root(s)');
    expect(text(await client.callTool({ name: 'get-roots-list', arguments: {} }))).toContain(
      pathToFileURL(first).href,
    );
    await roots.add({ uri: pathToFileURL(second).href, name: 'second' });
    await waitForLog('Roots updated: 2 root(s)');
    const listed = text(await client.callTool({ name: 'get-roots-list', arguments: {} }));
    expect(listed).toContain(pathToFileURL(second).href);
    expect(await roots.remove(pathToFileURL(first).href)).toBe(true);
    expect(roots.roots.map((r) => r.name)).toEqual(['second']);
    await expect(roots.add({ uri: 'https://example.com/' })).rejects.toBeInstanceOf(RootInvalid);
    expect(roots.roots).toHaveLength(1);
  }, 30_000);

  it('calls a tool that requires a task as one: polled, asked through tasks/result, completed', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'simulate-research-query');
    expect(needsTask(tool as never)).toBe(true);
    const states: TaskState[] = [];
    const result = await elicit.callTool(
      { name: 'simulate-research-query', arguments: { topic: 'python', ambiguous: true } },
      { asTask: true, onTask: (s) => states.push(s) },
    );
    expect(text(result)).toContain('# Research Report: python');
    expect(text(result)).toContain('snake');
    expect(states[0]?.status).toBe('working');
    expect(new Set(states.map((s) => s.taskId)).size).toBe(1);
  }, 60_000);
});
