/**
 * The browser host of `elicit demo --web`: the SDK client running in the page, talking to the
 * demo server over Streamable HTTP, with elicitations rendered by the elicit elements.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { TaskState } from '../../client/index.ts';
import { attachElicitation } from '../../client/index.ts';
import { MODERN_REVISION } from '../../kernel/revision.ts';
import { fromJsonSchema } from '../../schema/index.ts';
import type { ElicitFormElement, ElicitResponseDetail } from '../form-element.ts';
import { webRenderer } from '../index.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** A line in the log; server text is set as text, in its own direction. */
const log = (text: string, kind = ''): HTMLElement => {
  const p = document.createElement('p');
  p.className = `entry ${kind}`;
  p.dir = 'auto';
  p.tabIndex = -1;
  p.textContent = text;
  $('log-section').hidden = false;
  $('log').append(p);
  p.scrollIntoView({ block: 'nearest' });
  return p;
};

/** A short status announced to screen readers (the page's own words). */
const status = (text: string) => {
  $('status').textContent = text;
};

/** The form or consent currently open in the page, if any (the newest). */
const openPrompt = (): HTMLElement | undefined =>
  [...$('prompts').querySelectorAll<HTMLElement>('elicit-form, elicit-url-consent')].at(-1);

const toolButtons = () => [...document.querySelectorAll<HTMLButtonElement>('.tools button')];

/**
 * When what held focus goes away (an answered form, a finished call), focus moves to what comes
 * next, never to <body>: an open form, the running call, the newest log line, the first tool.
 */
function refocus(): void {
  const active = document.activeElement;
  if (active !== null && active !== document.body && active.isConnected) return;
  const next =
    openPrompt() ??
    [...document.querySelectorAll<HTMLElement>('#calls .call')].at(-1) ??
    [...document.querySelectorAll<HTMLElement>('#log .entry')].at(-1) ??
    toolButtons()[0] ??
    $('connect');
  next.focus();
}

/** While a form is open, the tools say they wait for it (and a click goes to the form). */
function markBusy(): void {
  const busy = openPrompt() !== undefined;
  for (const b of toolButtons()) b.setAttribute('aria-disabled', String(busy));
}

new MutationObserver((records) => {
  markBusy();
  // After the current task: the result line a finished call logs is there by then.
  if (records.some((r) => r.removedNodes.length > 0)) setTimeout(refocus, 0);
}).observe(document.querySelector('main') as HTMLElement, { childList: true, subtree: true });

/** True (and focus moves to the form) when a form is open: a new call waits for it. */
function waitsForOpenForm(): boolean {
  const open = openPrompt();
  if (open === undefined) return false;
  status('Answer or cancel the open form first.');
  open.focus();
  return true;
}

/**
 * Progress text in plain words: on 2026-07-28 the SDK reports its own input rounds as
 * "Fulfilling input required by 'tools/call' (round 1)", which means nothing to a person.
 */
const plainProgress = (message: string): string =>
  /^Fulfilling input required by '/.test(message) ? 'Waiting for your answer…' : message;

/** A task's status in plain words. */
const TASK_STATUS: Record<string, string> = {
  working: 'Working',
  input_required: 'Waiting for your answer',
  completed: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: { properties?: Record<string, unknown> };
}

interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Arguments through an <elicit-form> built from a JSON schema; undefined when declined, or when
 * the schema is not one a form can show (said in the log).
 */
async function argumentsFor(
  title: string,
  schema: { properties?: Record<string, unknown> } | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (schema?.properties === undefined || Object.keys(schema.properties).length === 0) return {};
  let form: ReturnType<typeof fromJsonSchema>['form'];
  try {
    form = fromJsonSchema(schema).form;
  } catch (error) {
    log(
      `The arguments of ${title} cannot be shown as a form: ${(error as Error).message}`,
      'error',
    );
    return undefined;
  }
  const element = document.createElement('elicit-form') as ElicitFormElement;
  $('prompts').append(element);
  element.request = {
    server: 'elicit (this page)',
    message: `Arguments for ${title}`,
    schema: form.schema,
  };
  element.focus();
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

/** A prompt's declared arguments as the JSON schema of a form (all are strings). */
function promptSchema(prompt: Prompt): { properties?: Record<string, unknown> } {
  const args = prompt.arguments ?? [];
  return {
    type: 'object',
    properties: Object.fromEntries(
      args.map((a) => [
        a.name,
        { type: 'string', title: a.name, ...(a.description ? { description: a.description } : {}) },
      ]),
    ),
    required: args.filter((a) => a.required === true).map((a) => a.name),
  } as { properties?: Record<string, unknown> };
}

/**
 * A running request: a row with a progress bar and a Cancel button. Cancel aborts the signal;
 * the SDK then sends notifications/cancelled (or, on 2026-07-28, ends the request's stream),
 * and a call that became a task is cancelled with tasks/cancel.
 */
async function activity<T>(
  kind: 'tool' | 'prompt',
  name: string,
  label: string,
  run: (
    signal: AbortSignal,
    onprogress: (p: Progress) => void,
    onTask: (task: TaskState) => void,
  ) => Promise<T>,
): Promise<T | undefined> {
  const row = document.createElement('div');
  row.className = 'call';
  row.dataset[kind] = name;
  row.setAttribute('role', 'group');
  row.setAttribute('aria-label', label);
  row.tabIndex = -1;
  const title = document.createElement('span');
  title.className = 'label';
  title.dir = 'auto';
  title.textContent = label;
  const bar = document.createElement('progress');
  bar.setAttribute('aria-label', `Progress of ${label}`);
  const detail = document.createElement('span');
  detail.className = 'detail';
  detail.dir = 'auto';
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.className = 'cancel';
  cancel.textContent = 'Cancel';
  row.append(title, bar, detail, cancel);
  $('calls').append(row);
  // Focus follows the call the person just started (the form that started it is gone).
  if (openPrompt() === undefined) row.focus();
  const controller = new AbortController();
  cancel.addEventListener('click', () => controller.abort(new Error(`${label} was cancelled`)), {
    once: true,
  });
  const onprogress = (p: Progress) => {
    // Numbers from the server are checked before they reach the bar; text is set as text.
    const total =
      typeof p.total === 'number' && Number.isFinite(p.total) && p.total > 0 ? p.total : 0;
    const done = Number.isFinite(p.progress) && p.progress >= 0 ? p.progress : 0;
    if (total > 0) {
      bar.max = total;
      bar.value = Math.min(done, total);
      row.dataset.percent = String(Math.round((bar.value / total) * 100));
    } else bar.removeAttribute('value');
    detail.textContent =
      typeof p.message === 'string'
        ? plainProgress(p.message).slice(0, 120)
        : total > 0
          ? `${done} of ${total}`
          : '';
  };
  // A task's status and message (already inert and bounded by the client), set as text.
  const onTask = (task: TaskState) => {
    row.dataset.task = task.taskId;
    row.dataset.status = task.status;
    const said = TASK_STATUS[task.status] ?? task.status;
    detail.textContent = `${said}${task.statusMessage ? `: ${plainProgress(task.statusMessage)}` : ''}`;
  };
  try {
    return await run(controller.signal, onprogress, onTask);
  } catch (error) {
    if (controller.signal.aborted) log(`✕ ${label}: cancelled.`, 'muted');
    else throw error;
    return undefined;
  } finally {
    row.remove();
  }
}

const textOf = (content: unknown): string => {
  const items = Array.isArray(content) ? content : [content];
  return (items as { type?: string; text?: string }[])
    .map((c) => (c?.type === 'text' ? (c.text ?? '') : `[${c?.type ?? 'content'}]`))
    .join('\n');
};

function button(kind: 'tool' | 'prompt', name: string, label: string, hint: string) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.dataset[kind] = name;
  b.dir = 'auto';
  if (hint !== '') b.title = hint;
  b.setAttribute('aria-disabled', 'false');
  return b;
}

let current: Client | undefined;

async function start(era: string): Promise<void> {
  // Connect again: the previous client goes (its open forms are cancelled with it).
  await current?.close().catch(() => undefined);
  const client = new Client({ name: 'elicit-web-host', version: '0.1.0' });
  const elicit = attachElicitation(client, {
    renderer: webRenderer({ container: $('prompts'), notice: (e) => log(`(${e.type})`, 'muted') }),
    openUrl: async (href) => {
      window.open(href, '_blank', 'noopener,noreferrer');
    },
    tasks: true,
  });
  client.setVersionNegotiation({
    mode: era === 'legacy' ? 'legacy' : era === 'modern' ? { pin: MODERN_REVISION } : 'auto',
  });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  current = client;
  log(`Connected (${client.getProtocolEra()} era, ${client.getNegotiatedProtocolVersion()})`);
  document.body.dataset.era = client.getProtocolEra() ?? '';
  const capabilities = client.getServerCapabilities() ?? {};

  const { tools } = (await client.listTools()) as { tools: Tool[] };
  const list = $('tools');
  list.replaceChildren();
  $('tools-section').hidden = tools.length === 0;
  for (const tool of tools) {
    const label = tool.title ?? tool.name;
    const b = button('tool', tool.name, label, tool.description ?? '');
    b.addEventListener('click', async () => {
      if (waitsForOpenForm()) return;
      const args = await argumentsFor(label, tool.inputSchema);
      // Declined or cancelled: focus goes back to the button that opened the form.
      if (args === undefined) return void b.focus();
      log(`▶ ${tool.name}`);
      try {
        const result = await activity('tool', tool.name, label, (signal, onprogress, onTask) =>
          elicit.callTool(
            { name: tool.name, arguments: args },
            { timeout: 600_000, resetTimeoutOnProgress: true, signal, onprogress, onTask },
          ),
        );
        if (result === undefined) return;
        log(`◀ ${textOf(result.content)}`, result.isError === true ? 'error' : 'result');
      } catch (error) {
        log(`The call failed: ${(error as Error).message}`, 'error');
      }
    });
    list.append(b);
  }

  const promptList = $('prompt-list');
  promptList.replaceChildren();
  const { prompts } =
    capabilities.prompts === undefined
      ? { prompts: [] as Prompt[] }
      : ((await client.listPrompts()) as { prompts: Prompt[] });
  $('prompt-section').hidden = prompts.length === 0;
  for (const prompt of prompts) {
    const label = prompt.title ?? prompt.name;
    const b = button('prompt', prompt.name, label, prompt.description ?? '');
    b.addEventListener('click', async () => {
      if (waitsForOpenForm()) return;
      const args = await argumentsFor(label, promptSchema(prompt));
      // Declined or cancelled: focus goes back to the button that opened the form.
      if (args === undefined) return void b.focus();
      log(`▶ prompt ${prompt.name}`);
      try {
        const result = await activity('prompt', prompt.name, label, (signal, onprogress, onTask) =>
          elicit.followTasks(
            () =>
              client.getPrompt(
                { name: prompt.name, arguments: args as Record<string, string> },
                { timeout: 600_000, signal, onprogress },
              ),
            { signal, onTask },
          ),
        );
        if (result === undefined) return;
        for (const m of result.messages as { role: string; content: unknown }[])
          log(`◀ ${m.role}: ${textOf(m.content)}`, 'result');
      } catch (error) {
        log(`The prompt failed: ${(error as Error).message}`, 'error');
      }
    });
    promptList.append(b);
  }
}

$('connect').addEventListener('click', () => {
  const connect = $<HTMLButtonElement>('connect');
  if (connect.getAttribute('aria-disabled') === 'true') return;
  connect.setAttribute('aria-disabled', 'true');
  status('Connecting…');
  void start(($('era') as HTMLSelectElement).value)
    .then(() => {
      connect.textContent = 'Reconnect';
      connect.classList.remove('primary');
      const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
      const tools = document.querySelectorAll('#tools button').length;
      const prompts = document.querySelectorAll('#prompt-list button').length;
      status(`Connected: ${count(tools, 'tool')}, ${count(prompts, 'prompt')}.`);
      // The person connected to use a tool: focus goes to the first one.
      toolButtons()[0]?.focus();
    })
    .catch((e: Error) => {
      status('Not connected.');
      log(`Could not connect: ${e.message}`, 'error');
    })
    .finally(() => connect.setAttribute('aria-disabled', 'false'));
});
