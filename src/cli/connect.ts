/**
 * `elicit connect`: a terminal host for any MCP server. Lists tools, calls them with arguments
 * entered through a form built from the tool's input schema (JSON when it is not flat), shows
 * results, and renders elicitations safely. Scripted with --answers for non-interactive runs.
 */
import type { Readable, Writable } from 'node:stream';
import * as p from '@clack/prompts';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { attachElicitation, identityOf } from '../client/attach.ts';
import { inert } from '../client/inert.ts';
import { type Policy, type ScriptedAnswer, scriptedRenderer } from '../client/scripted.ts';
import { terminalRenderer } from '../client/terminal.ts';
import type { Renderer } from '../client/types.ts';
import { applyDefaults, fromJsonSchema } from '../schema/index.ts';
import { openInBrowser } from './open.ts';

export type Target =
  | { readonly url: string }
  | { readonly command: string; readonly args: readonly string[] };

export interface ConnectOptions {
  readonly target: Target;
  readonly era: 'auto' | 'legacy' | 'modern';
  readonly interactive: boolean;
  readonly answers?: readonly ScriptedAnswer[];
  readonly policy?: Policy;
  /** Scripted runs: open URL-mode pages (through ELICIT_BROWSER or the system browser). */
  readonly openUrls?: boolean;
  /** Non-interactive: the tools to call, in order, with their arguments. */
  readonly calls?: readonly { readonly name: string; readonly args?: Record<string, unknown> }[];
  readonly input: Readable;
  readonly output: Writable;
}

interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
}

function resultText(result: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}): string {
  const parts: string[] = [];
  for (const item of (result.content as { type: string; text?: string }[] | undefined) ?? []) {
    parts.push(item.type === 'text' ? inert(item.text ?? '', 20_000) : `[${item.type} content]`);
  }
  if (result.structuredContent !== undefined)
    parts.push(inert(JSON.stringify(result.structuredContent, null, 2), 20_000));
  return parts.join('\n') || '(no content)';
}

/** Wraps a renderer so a spinner pauses while the person answers. */
function pausing(renderer: Renderer, spin: { stop(): void; resume(): void }): Renderer {
  return {
    form: async (r, s) => {
      spin.stop();
      try {
        return await renderer.form(r, s);
      } finally {
        spin.resume();
      }
    },
    url: async (r, s) => {
      spin.stop();
      try {
        return await renderer.url(r, s);
      } finally {
        spin.resume();
      }
    },
    notice: (e) => renderer.notice?.(e),
  };
}

export async function runConnect(o: ConnectOptions): Promise<number> {
  const out = (line: string) => o.output.write(`${line}\n`);
  const io = { input: o.input, output: o.output };
  let spinner: ReturnType<typeof p.spinner> | undefined;
  let spinning = '';
  const spin = {
    stop: () => {
      if (spinner !== undefined) spinner.stop('waiting for your answer…');
      spinner = undefined;
    },
    resume: () => {
      if (o.interactive && spinning !== '') {
        spinner = p.spinner(io);
        spinner.start(spinning);
      }
    },
  };
  const base = o.interactive
    ? terminalRenderer(io)
    : scriptedRenderer({
        answers: o.answers,
        policy: o.policy,
        urls: o.openUrls ? 'open' : 'decline',
        log: out,
      });
  const renderer = pausing(base, spin);

  const client = new Client({ name: 'elicit', version: '0.1.0' });
  const elicit = attachElicitation(client, { renderer, openUrl: openInBrowser });
  client.setVersionNegotiation({
    mode: o.era === 'auto' ? 'auto' : o.era === 'legacy' ? 'legacy' : { pin: '2026-07-28' },
  });
  const transport =
    'url' in o.target
      ? new StreamableHTTPClientTransport(new URL(o.target.url))
      : new StdioClientTransport({
          command: o.target.command,
          args: [...o.target.args],
          stderr: 'inherit',
        });
  try {
    await client.connect(transport);
  } catch (error) {
    out(`Could not connect: ${(error as Error).message}`);
    return 2;
  }
  const server = identityOf(client);
  out(
    `Connected to ${inert(server.title ?? server.name, 80, false)} ${inert(server.version ?? '', 20, false)} (protocol ${client.getNegotiatedProtocolVersion()}, ${client.getProtocolEra()} era)`,
  );
  try {
    const { tools } = (await client.listTools()) as { tools: Tool[] };
    if (!o.interactive) {
      for (const t of tools)
        out(`  tool ${inert(t.name, 80, false)}: ${inert(t.description ?? '', 200, false)}`);
      let status = 0;
      for (const call of o.calls ?? []) {
        if (!tools.some((t) => t.name === call.name)) {
          out(`No tool named ${JSON.stringify(call.name)}.`);
          return 2;
        }
        out(`\n▶ ${call.name} ${JSON.stringify(call.args ?? {})}`);
        const result = await elicit.callTool(
          { name: call.name, arguments: call.args ?? {} },
          { timeout: 600_000 },
        );
        out(`◀ ${result.isError === true ? 'error: ' : ''}${resultText(result)}`);
        if (result.isError === true) status = 1;
      }
      return status;
    }
    for (;;) {
      const choice = await p.select({
        ...io,
        message: 'Call a tool',
        options: [
          ...tools.map((t) => ({
            value: t.name,
            label: inert(t.title ?? t.name, 60, false),
            hint: inert(t.description ?? '', 80, false),
          })),
          { value: '\u0000quit', label: 'Quit' },
        ],
      });
      if (p.isCancel(choice) || choice === '\u0000quit') return 0;
      const tool = tools.find((t) => t.name === choice) as Tool;
      const args = await askArguments(tool, base, io);
      if (args === undefined) continue;
      spinning = `Calling ${tool.name}…`;
      spin.resume();
      try {
        const result = await elicit.callTool(
          { name: tool.name, arguments: args },
          { timeout: 600_000 },
        );
        spin.stop();
        spinning = '';
        if (result.isError === true) p.log.error(resultText(result), io);
        else p.log.success(resultText(result), io);
      } catch (error) {
        spin.stop();
        spinning = '';
        p.log.error(`The call failed: ${inert((error as Error).message, 500)}`, io);
      }
    }
  } catch (error) {
    out(`Failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await client.close();
  }
}

/** Arguments for a tool: a form when the input schema is flat, JSON otherwise. */
async function askArguments(
  tool: Tool,
  renderer: Renderer,
  io: { input: Readable; output: Writable },
): Promise<Record<string, unknown> | undefined> {
  const schema = tool.inputSchema as { properties?: Record<string, unknown> } | undefined;
  if (schema?.properties === undefined || Object.keys(schema.properties).length === 0) return {};
  try {
    const { form } = fromJsonSchema(schema);
    const response = await renderer.form(
      {
        server: { name: 'elicit', title: `Arguments for ${tool.name}` },
        message: inert(tool.description ?? tool.name, 500),
        schema: form.schema,
        issues: [],
        initial: applyDefaults(form.schema, {}),
        attempt: 1,
      },
      new AbortController().signal,
    );
    return response.action === 'accept' ? { ...response.content } : undefined;
  } catch {
    for (;;) {
      const text = await p.text({
        ...io,
        message: `Arguments for ${tool.name} (JSON)`,
        initialValue: '{}',
      });
      if (p.isCancel(text)) return undefined;
      try {
        const value = JSON.parse(text ?? '{}');
        if (value !== null && typeof value === 'object' && !Array.isArray(value))
          return value as Record<string, unknown>;
      } catch {}
      p.log.error('Enter a JSON object, for example {"city": "Oslo"}.', io);
    }
  }
}
