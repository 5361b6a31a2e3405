/**
 * `@modelcontextprotocol/server-everything` (the reference server, plain v1 SDK, 2025-11-25)
 * behind `elicit gateway`, with a host that declares sampling, roots and both elicitation modes:
 * every tool it lists is called through the gateway and works, sampling and roots included.
 * One tool needs 2025-11-25 task augmentation, which the gateway does not bridge (docs/gateway.md).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callToolAsTask } from '../../src/client/index.ts';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import type { Listening } from '../../src/server/index.ts';

let gateway: Gateway;
let front: Listening;
let host: Client;
const asked: string[] = [];

const ARGS: Record<string, Record<string, unknown>> = {
  echo: { message: 'hello' },
  'get-sum': { a: 2, b: 3 },
  'get-structured-content': { location: 'Chicago' },
  'get-annotated-message': { messageType: 'success' },
  'get-resource-reference': { resourceType: 'Text', resourceId: 1 },
  'gzip-file-as-resource': { name: 'a.gz', data: 'data:text/plain;base64,aGVsbG8=' },
  'trigger-long-running-operation': { duration: 1, steps: 2 },
  'trigger-url-elicitation': { url: 'https://example.com/consent' },
  'trigger-sampling-request': { prompt: 'hi', maxTokens: 10 },
};
/** Runs only as a task (tasks on 2025-11-25): called as one below. */
const TASK_ONLY = new Set(['simulate-research-query']);

beforeAll(async () => {
  gateway = await createGateway({
    transport: () =>
      new StdioClientTransport({
        command: process.execPath,
        args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'],
        stderr: 'ignore',
      }),
  });
  front = await gateway.listen();
  host = new Client(
    { name: 'host', version: '1' },
    { capabilities: { sampling: {}, roots: {}, elicitation: { form: {}, url: {} } } },
  );
  host.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'test-model' };
  });
  host.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
  });
  host.setRequestHandler('elicitation/create', async (req) => {
    const p = req.params as { mode?: string; requestedSchema?: { properties: object } };
    asked.push(`elicitation:${p.mode ?? 'form'}`);
    if (p.mode === 'url') return { action: 'accept' } as never;
    const content: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p.requestedSchema?.properties ?? {}) as [
      string,
      { type?: string; default?: unknown; enum?: unknown[]; format?: string; minimum?: number },
    ][])
      content[k] =
        v.default ??
        v.enum?.[0] ??
        (v.type === 'boolean'
          ? true
          : v.type === 'number' || v.type === 'integer'
            ? (v.minimum ?? 1)
            : v.type === 'array'
              ? []
              : v.format === 'email'
                ? 'a@example.com'
                : v.format === 'date'
                  ? '2026-01-01'
                  : v.format === 'uri'
                    ? 'https://example.com'
                    : 'text');
    return { action: 'accept', content } as never;
  });
  host.setVersionNegotiation({ mode: 'legacy' });
  await host.connect(new StreamableHTTPClientTransport(front.url));
}, 60_000);
afterAll(async () => {
  await host?.close();
  await front?.close();
  await gateway?.close();
});

describe('server-everything behind the gateway', () => {
  it('every tool works through the gateway; sampling, roots and elicitation reach the host', async () => {
    expect(gateway.upstream.revision).toBe('2025-11-25');
    const { tools } = await host.listTools();
    expect(tools.length).toBeGreaterThan(10);
    const failed: string[] = [];
    for (const tool of tools) {
      if (TASK_ONLY.has(tool.name)) continue;
      const r = (await host.callTool(
        { name: tool.name, arguments: ARGS[tool.name] ?? {} },
        { timeout: 30_000 },
      )) as { isError?: boolean; content?: { text?: string }[] };
      if (r.isError === true) failed.push(`${tool.name}: ${r.content?.[0]?.text}`);
    }
    expect(failed).toEqual([]);
    expect(asked).toEqual(expect.arrayContaining(['sampling', 'roots', 'elicitation:form']));
    // The tool that runs only as a task: the host's task, made a task on the server too, its
    // clarifying question asked through the host's task.
    const before = asked.length;
    const research = (await callToolAsTask(
      host,
      { name: 'simulate-research-query', arguments: { topic: 'tides', ambiguous: true } },
      { requestTimeoutMs: 30_000 },
    )) as { content?: { text?: string }[] };
    expect(research.content?.[0]?.text ?? '').toContain('tides');
    expect(asked.slice(before)).toContain('elicitation:form');
    const prompts = await host.listPrompts();
    expect(prompts.prompts.length).toBeGreaterThan(0);
    const resources = await host.listResources();
    const read = await host.readResource({ uri: resources.resources[0]?.uri as string });
    expect(read.contents.length).toBe(1);
  }, 120_000);
});
