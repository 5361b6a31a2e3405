/**
 * A tasks-extension server (2026-07-28, `io.modelcontextprotocol/tasks`) on the plain SDK v2
 * low-level `Server`, served over HTTP by the SDK's createMcpHandler: tools/call answers a
 * CreateTaskResult when the request declares the extension; tasks/get, tasks/update and
 * tasks/cancel follow the wire of the conformance scenarios (tasks-lifecycle, -wire-fields,
 * -mrtr-input, -dispatch). Tasks advance one step per tasks/get, so tests need no clocks.
 * Some tools misbehave on purpose (floods of questions, endless work, huge ids).
 * The listener can be stopped and started again on the same port with its tasks kept.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createMcpHandler, ProtocolError, Server } from '@modelcontextprotocol/server';

export const TASKS = 'io.modelcontextprotocol/tasks';

type Json = Record<string, unknown>;
interface FixtureTask {
  taskId: string;
  tool: string;
  args: Json;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  step: number;
  /** Still pending questions, by key. */
  pending: Record<string, Json>;
  answers: Record<string, unknown>;
  result?: Json;
  error?: Json;
}

const RAW = {
  '~standard': {
    version: 1 as const,
    vendor: 'test',
    validate: (value: unknown) => ({ value: (value ?? {}) as Json }),
  },
};

const question = (message: string, field = 'confirm'): Json => ({
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message,
    requestedSchema: {
      type: 'object',
      properties: { [field]: { type: 'boolean', title: field } },
      required: [field],
    },
  },
});

const text = (t: string, isError = false): Json => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError: true } : {}),
});

const TOOLS = [
  'greet',
  'probe',
  'slow',
  'long',
  'confirm',
  'two_questions',
  'represent',
  'withdraw',
  'failing',
  'server_cancels',
  'endless',
  'flood',
  'long_id',
  'tool_error',
  'sampling',
  'noisy',
].map((name) => ({
  name,
  description: `fixture ${name}`,
  inputSchema: { type: 'object', properties: {} },
  ...(name === 'greet' || name === 'probe' ? {} : { execution: { taskSupport: 'optional' } }),
}));

export interface TaskServer {
  readonly url: URL;
  readonly tasks: Map<string, FixtureTask>;
  /** Every request the server received: method and params. */
  readonly log: { method: string; params: Json }[];
  /** Stops listening (open connections dropped); tasks are kept. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface TaskServerOptions {
  /** Default: a free port. */
  readonly port?: number;
  /** Each request, as it arrives. */
  readonly onRequest?: (method: string, params: Json) => void;
  /** Serves other paths than /mcp on the same origin (a host page); undefined = 404. */
  readonly assets?: (path: string) => Response | Promise<Response> | undefined;
}

export async function startTaskServer(options: TaskServerOptions = {}): Promise<TaskServer> {
  const tasks = new Map<string, FixtureTask>();
  const entries: { method: string; params: Json }[] = [];
  const log = {
    push(entry: { method: string; params: Json }) {
      entries.push(entry);
      options.onRequest?.(entry.method, entry.params);
    },
  };
  let counter = 0;

  const now = () => new Date().toISOString();
  const touch = (t: FixtureTask) => {
    t.lastUpdatedAt = now();
  };

  /** One step of a task's script, run at each tasks/get. */
  function advance(t: FixtureTask): void {
    if (t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') return;
    t.step++;
    touch(t);
    const steps = typeof t.args.steps === 'number' ? t.args.steps : t.tool === 'long' ? 40 : 3;
    switch (t.tool) {
      case 'long':
      case 'slow':
        if (t.step <= steps) t.statusMessage = `step ${t.step} of ${steps}`;
        else {
          t.status = 'completed';
          t.result = text(`done after ${steps} steps`);
        }
        return;
      case 'confirm':
        if (t.step === 1) {
          t.status = 'input_required';
          t.pending.c1 = question('Delete the file?');
        } else if (Object.keys(t.pending).length === 0) {
          t.status = 'completed';
          t.result = text(`answer: ${JSON.stringify(t.answers.c1)}`);
        }
        return;
      case 'two_questions':
        if (t.step === 1) {
          t.status = 'input_required';
          t.pending.a = question('First?', 'first');
          t.pending.b = question('Second?', 'second');
        } else if (Object.keys(t.pending).length === 0) {
          t.status = 'completed';
          t.result = text(`answers: ${JSON.stringify(t.answers)}`);
        }
        return;
      case 'represent': {
        // Asks r1; after it is answered, shows r1 again for two polls (a confused server), then r2.
        const answered = Object.keys(t.answers);
        if (t.step === 1) {
          t.status = 'input_required';
          t.pending.r1 = question('Once?');
        } else if (answered.length === 1 && t.step < 6) {
          t.status = 'input_required';
          t.pending = { r1: question('Once?') };
          if (t.step >= 4) t.pending.r2 = question('Then this?');
        } else if (answered.length === 2) {
          t.status = 'completed';
          t.pending = {};
          t.result = text(`answers: ${JSON.stringify(t.answers)}`);
        }
        return;
      }
      case 'withdraw':
        // Asks w1, and takes it back two polls later, unanswered; then finishes without it.
        if (t.step === 1) {
          t.status = 'input_required';
          t.pending.w1 = question('Soon withdrawn?');
        } else if (t.step === 3) {
          t.status = 'working';
          t.pending = {};
        } else if (t.step >= 5) {
          t.status = 'completed';
          t.result = text(`finished with answers ${JSON.stringify(t.answers)}`);
        }
        return;
      case 'failing':
        t.status = 'failed';
        t.error = { code: -32603, message: 'disk full\u001b[31m', data: { where: 'fixture' } };
        return;
      case 'server_cancels':
        t.status = 'cancelled';
        return;
      case 'endless':
        t.statusMessage = `still working (${t.step})`;
        return;
      case 'flood':
        t.status = 'input_required';
        for (let i = 0; i < 5000; i++) t.pending[`q${i}`] = question(`Question ${i}`);
        return;
      case 'noisy':
        // A status message that tries to clear the screen, and goes on for pages.
        t.statusMessage = `\u001b[2J\u001b[H${'x'.repeat(100_000)}`;
        if (t.step >= 2) {
          t.status = 'completed';
          t.result = text('ok');
        }
        return;
      case 'tool_error':
        t.status = 'completed';
        t.result = text('the tool reported an error', true);
        return;
      case 'sampling':
        t.status = 'input_required';
        t.pending.s = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
        return;
      default:
        t.status = 'completed';
        t.result = text('ok');
    }
  }

  const wire = (t: FixtureTask, detailed: boolean): Json => ({
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage === undefined ? {} : { statusMessage: t.statusMessage }),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: 600_000,
    pollIntervalMs: 1,
    ...(detailed && t.status === 'input_required' ? { inputRequests: { ...t.pending } } : {}),
    ...(detailed && t.status === 'completed' ? { result: t.result } : {}),
    ...(detailed && t.status === 'failed' ? { error: t.error } : {}),
  });

  const declared = (ctx: unknown): boolean => {
    const envelope = (ctx as { mcpReq?: { envelope?: Json } }).mcpReq?.envelope;
    const caps = envelope?.['io.modelcontextprotocol/clientCapabilities'] as
      | { extensions?: Json }
      | undefined;
    return caps?.extensions?.[TASKS] !== undefined;
  };

  const known = (params: Json): FixtureTask => {
    const t = tasks.get(String(params.taskId));
    if (t === undefined) throw new ProtocolError(-32602, `Unknown task ${String(params.taskId)}`);
    return t;
  };

  function build(): Server {
    const server = new Server(
      { name: 'task-fixture', version: '1.0.0' },
      { capabilities: { tools: {}, extensions: { [TASKS]: {} } } },
    );
    server.setRequestHandler('tools/list', () => ({ tools: TOOLS }) as never);
    server.setRequestHandler('tools/call', (request, ctx) => {
      const params = request.params as Json;
      log.push({ method: 'tools/call', params });
      const name = String(params.name);
      const args = (params.arguments ?? {}) as Json;
      if (name === 'greet') return text('Hello!') as never;
      if (name === 'probe') return text(declared(ctx) ? 'tasks declared' : 'no tasks') as never;
      if (!declared(ctx)) return text(`${name} ran without a task`) as never;
      const taskId =
        name === 'long_id' ? 'x'.repeat(10_000) : `task-${++counter}-${name}`.slice(0, 60);
      const t: FixtureTask = {
        taskId,
        tool: name,
        args,
        status: 'working',
        createdAt: now(),
        lastUpdatedAt: now(),
        step: 0,
        pending: {},
        answers: {},
      };
      tasks.set(taskId, t);
      return { resultType: 'task', ...wire(t, false) } as never;
    });
    server.setRequestHandler(
      'tasks/get',
      { params: RAW } as never,
      ((params: Json, ctx: unknown) => {
        log.push({ method: 'tasks/get', params });
        if (!declared(ctx)) throw new ProtocolError(-32021, 'tasks extension not declared');
        const t = known(params);
        advance(t);
        return wire(t, true);
      }) as never,
    );
    server.setRequestHandler(
      'tasks/update',
      { params: RAW } as never,
      ((raw: Json, ctx: { mcpReq: { inputResponses?: Json } }) => {
        // The SDK lifts `inputResponses` out of every 2026-07-28 request's params into the context.
        const params = { ...raw, inputResponses: ctx.mcpReq.inputResponses ?? raw.inputResponses };
        log.push({ method: 'tasks/update', params });
        const t = known(params);
        const responses = (params.inputResponses ?? {}) as Json;
        for (const [key, value] of Object.entries(responses)) {
          if (!(key in t.pending)) continue;
          delete t.pending[key];
          t.answers[key] = value;
        }
        if (t.status === 'input_required' && Object.keys(t.pending).length === 0)
          t.status = 'working';
        touch(t);
        return {};
      }) as never,
    );
    server.setRequestHandler(
      'tasks/cancel',
      { params: RAW } as never,
      ((params: Json) => {
        log.push({ method: 'tasks/cancel', params });
        const t = known(params);
        if (t.status !== 'completed' && t.status !== 'failed') t.status = 'cancelled';
        touch(t);
        return {};
      }) as never,
    );
    return server;
  }

  const handler = createMcpHandler(() => build(), { legacy: 'reject' });
  const listener = getRequestListener(async (req) => {
    const path = new URL(req.url).pathname;
    if (path === '/mcp') return handler.fetch(req);
    return (await options.assets?.(path)) ?? new Response('not found', { status: 404 });
  });
  let http: HttpServer = createHttpServer(listener);
  await new Promise<void>((r) => http.listen(options.port ?? 0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    tasks,
    log: entries,
    async stop() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
    async start() {
      http = createHttpServer(listener);
      await new Promise<void>((r) => http.listen(port, '127.0.0.1', r));
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
      await handler.close?.();
    },
  };
}
