/**
 * What the SDK (2.4) does with the 2025-11-25 tasks on its own, pinned: the reasons the task
 * branches of elicit sit where they do (see src/server/tasks/legacy-tasks.ts and
 * src/client/tasks.ts). If one of these starts failing, the SDK changed and the seam may go.
 */
import { Client, InMemoryTransport, type ProtocolError } from '@modelcontextprotocol/client';
import { CreateTaskResultSchema, ElicitResultSchema } from '@modelcontextprotocol/core';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { rpcError } from '../support/kit.ts';

const TASK = {
  taskId: 't1',
  status: 'working',
  ttl: 1000,
  createdAt: new Date(0).toISOString(),
  lastUpdatedAt: new Date(0).toISOString(),
};

async function pair(mcp: McpServer, client: Client) {
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await mcp.connect(st);
  await client.connect(ct);
}

describe('the plain SDK and 2025-11-25 tasks', () => {
  it('Server refuses a CreateTaskResult from a tools/call handler (CallToolResultWireSchema)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    mcp.registerTool('t', {}, async () => ({ task: TASK }) as never);
    const client = new Client({ name: 'c', version: '1' });
    await pair(mcp, client);
    const error = await rpcError(
      client.request(
        { method: 'tools/call', params: { name: 't', arguments: {}, task: { ttl: 1000 } } },
        CreateTaskResultSchema,
      ),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/content is required when the body carries 'task'/);
    await client.close();
  });

  it('Client refuses a CreateTaskResult from an elicitation/create handler (ElicitResult check)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ task: TASK }) as never);
    await pair(mcp, client);
    const error = await rpcError(
      mcp.server.request(
        {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'm',
            requestedSchema: { type: 'object', properties: {} },
            task: { ttl: 1000 },
          },
        },
        CreateTaskResultSchema,
      ),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/Invalid elicitation result/);
    await client.close();
  });

  it('McpServer.registerTool drops execution; task methods have no handler; request() needs a schema for them', async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    mcp.registerTool('t', { execution: { taskSupport: 'optional' } } as never, async () => ({
      content: [],
    }));
    const client = new Client({ name: 'c', version: '1' });
    await pair(mcp, client);
    const { tools } = await client.listTools();
    expect(tools[0]?.execution).toBeUndefined();
    const missing = await client
      .request({ method: 'tasks/get', params: { taskId: 'x' } } as never, ElicitResultSchema)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((missing as ProtocolError).code).toBe(-32601);
    expect(() => client.request({ method: 'tasks/get', params: { taskId: 'x' } } as never)).toThrow(
      /pass a result schema/,
    );
    await client.close();
  });
});
