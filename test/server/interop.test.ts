/**
 * Our server against clients built on the plain SDKs: v1 (`@modelcontextprotocol/sdk` 1.32,
 * legacy) and v2 (`@modelcontextprotocol/client` 2.4, both eras), in-memory, stdio and HTTP.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Http,
  InMemoryTransport as V2Memory,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport as V1Memory } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { app } from '../../examples/conformance-server/server.ts';
import { httpEntry, type Listening, listen } from '../../src/server/index.ts';

type Params = { message: string; requestedSchema: { properties: Record<string, unknown> } };
type Reply = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
type Answer = (p: Params) => Reply;

interface Harness {
  call(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

let http: Listening;
beforeAll(async () => {
  http = await listen(httpEntry(app));
});
afterAll(async () => {
  await http.close();
});

const stdioArgs = {
  command: process.execPath,
  args: ['examples/conformance-server/server.ts', '--stdio'],
  stderr: 'ignore' as const,
};
let answer: Answer = () => ({ action: 'cancel' });
const seen: Params[] = [];
const respond = (p: Params) => {
  seen.push(p);
  return answer(p);
};

function text(result: unknown): string {
  return ((result as { content?: { text: string }[] }).content ?? [])[0]?.text ?? '';
}

async function v1(kind: 'memory' | 'stdio' | 'http'): Promise<Harness> {
  const client = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(
    ElicitRequestSchema,
    async (req) => respond(req.params as unknown as Params) as never,
  );
  if (kind === 'memory') {
    const [ct, st] = V1Memory.createLinkedPair();
    await app.build('legacy').connect(st as never);
    await client.connect(ct);
  } else if (kind === 'stdio') await client.connect(new V1Stdio(stdioArgs));
  else await client.connect(new V1Http(http.url));
  return {
    call: async (name, args = {}) => text(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

async function v2(kind: 'memory' | 'stdio' | 'http', era: 'legacy' | 'modern'): Promise<Harness> {
  const client = new V2Client(
    { name: 'v2', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  client.setRequestHandler(
    'elicitation/create',
    async (req) => respond(req.params as unknown as Params) as never,
  );
  if (kind === 'memory') {
    const [ct, st] = V2Memory.createLinkedPair();
    await app.build('legacy').connect(st);
    await client.connect(ct);
  } else if (kind === 'stdio') await client.connect(new V2Stdio(stdioArgs));
  else await client.connect(new V2Http(http.url));
  expect(client.getProtocolEra()).toBe(era);
  return {
    call: async (name, args = {}) => text(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

const matrix: [string, () => Promise<Harness>][] = [
  ['v1 in-memory', () => v1('memory')],
  ['v1 stdio', () => v1('stdio')],
  ['v1 http', () => v1('http')],
  ['v2 legacy in-memory', () => v2('memory', 'legacy')],
  ['v2 legacy stdio', () => v2('stdio', 'legacy')],
  ['v2 legacy http', () => v2('http', 'legacy')],
  ['v2 modern stdio', () => v2('stdio', 'modern')],
  ['v2 modern http', () => v2('http', 'modern')],
];

const choices = {
  untitledSingle: 'option1',
  titledSingle: 'value2',
  legacyEnum: 'opt3',
  untitledMulti: ['option1', 'option3'],
  titledMulti: ['value2'],
};

describe.each(matrix)('interop: %s', (_name, connect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  }, 30_000);
  afterAll(async () => {
    await h.close();
  });

  it('a form request round-trips', async () => {
    answer = () => ({ action: 'accept', content: { username: 'ann', email: 'ann@example.com' } });
    expect(await h.call('test_elicitation', { message: 'Who are you?' })).toBe(
      'Elicitation completed: action=accept, content={"username":"ann","email":"ann@example.com"}',
    );
    expect(seen.at(-1)?.message).toBe('Who are you?');
  });
  it('all five enum shapes', async () => {
    answer = () => ({ action: 'accept', content: choices });
    expect(await h.call('test_elicitation_sep1330_enums')).toBe(
      `Elicitation completed: action=accept, content=${JSON.stringify(choices)}`,
    );
    const props = seen.at(-1)?.requestedSchema.properties ?? {};
    expect(Object.keys(props)).toEqual(Object.keys(choices));
  });
  it('defaults are sent and applied', async () => {
    answer = (p) => {
      expect(p.requestedSchema.properties.age).toMatchObject({ default: 30 });
      return { action: 'accept', content: { name: 'Jo' } };
    };
    expect(await h.call('test_elicitation_sep1034_defaults')).toBe(
      'Elicitation completed: action=accept, content={"name":"Jo","age":30,"score":95.5,"status":"active","verified":true}',
    );
  });
  it('decline and cancel', async () => {
    answer = () => ({ action: 'decline' });
    expect(await h.call('test_elicitation', { message: 'm' })).toBe(
      'Elicitation completed: action=decline, content={}',
    );
    answer = () => ({ action: 'cancel' });
    expect(await h.call('test_elicitation', { message: 'm' })).toBe(
      'Elicitation completed: action=cancel, content={}',
    );
  });
  it('an invalid answer is asked again with the reason', async () => {
    let n = 0;
    answer = () =>
      ++n === 1
        ? { action: 'accept', content: { username: 'ann', email: 'not-an-email' } }
        : { action: 'accept', content: { username: 'ann', email: 'a@example.com' } };
    expect(await h.call('test_elicitation', { message: 'Who?' })).toBe(
      'Elicitation completed: action=accept, content={"username":"ann","email":"a@example.com"}',
    );
    expect(seen.at(-1)?.message).toContain(
      '- Email: Enter an email address such as name@example.com.',
    );
  });
});
