/**
 * The browser host of `elicit demo --web`: the SDK client running in the page, talking to the
 * demo server over Streamable HTTP, with elicitations rendered by the elicit elements.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { attachElicitation } from '../../client/attach.ts';
import { fromJsonSchema } from '../../schema/index.ts';
import type { ElicitFormElement, ElicitResponseDetail } from '../form-element.ts';
import { webRenderer } from '../index.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const log = (text: string, kind = '') => {
  const p = document.createElement('p');
  p.className = `entry ${kind}`;
  p.textContent = text;
  $('log').append(p);
  p.scrollIntoView({ block: 'nearest' });
};

interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: { properties?: Record<string, unknown> };
}

async function argumentsFor(tool: Tool): Promise<Record<string, unknown> | undefined> {
  if (
    tool.inputSchema?.properties === undefined ||
    Object.keys(tool.inputSchema.properties).length === 0
  )
    return {};
  const { form } = fromJsonSchema(tool.inputSchema);
  const element = document.createElement('elicit-form') as ElicitFormElement;
  $('prompts').append(element);
  element.request = {
    server: 'elicit (this page)',
    message: `Arguments for ${tool.title ?? tool.name}`,
    schema: form.schema,
  };
  const detail = await new Promise<ElicitResponseDetail>((resolve) =>
    element.addEventListener(
      'elicit-response',
      (e) => resolve((e as CustomEvent<ElicitResponseDetail>).detail),
      { once: true },
    ),
  );
  element.remove();
  return detail.action === 'accept' ? detail.content : undefined;
}

async function start(era: string): Promise<void> {
  const client = new Client({ name: 'elicit-web-host', version: '0.1.0' });
  const elicit = attachElicitation(client, {
    renderer: webRenderer({ container: $('prompts'), notice: (e) => log(`(${e.type})`, 'muted') }),
    openUrl: async (href) => {
      window.open(href, '_blank', 'noopener,noreferrer');
    },
  });
  client.setVersionNegotiation({
    mode: era === 'legacy' ? 'legacy' : era === 'modern' ? { pin: '2026-07-28' } : 'auto',
  });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  log(`Connected (${client.getProtocolEra()} era, ${client.getNegotiatedProtocolVersion()})`);
  document.body.dataset.era = client.getProtocolEra() ?? '';
  const { tools } = (await client.listTools()) as { tools: Tool[] };
  const list = $('tools');
  list.replaceChildren();
  for (const tool of tools) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = tool.title ?? tool.name;
    b.dataset.tool = tool.name;
    b.title = tool.description ?? '';
    b.addEventListener('click', async () => {
      const args = await argumentsFor(tool);
      if (args === undefined) return;
      log(`▶ ${tool.name}`);
      try {
        const result = await elicit.callTool(
          { name: tool.name, arguments: args },
          { timeout: 600_000 },
        );
        const text = ((result.content as { type: string; text?: string }[]) ?? [])
          .map((c) => c.text ?? `[${c.type}]`)
          .join('\n');
        log(`◀ ${text}`, result.isError === true ? 'error' : 'result');
      } catch (error) {
        log(`The call failed: ${(error as Error).message}`, 'error');
      }
    });
    list.append(b);
  }
}

$('connect').addEventListener('click', () => {
  void start(($('era') as HTMLSelectElement).value).catch((e: Error) =>
    log(`Could not connect: ${e.message}`, 'error'),
  );
});
