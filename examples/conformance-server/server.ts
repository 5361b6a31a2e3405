/**
 * Every tool and prompt the official conformance suite's elicitation scenarios expect, written
 * once with the `ask` API and served on both eras from one endpoint.
 *
 *   node examples/conformance-server/server.ts [port]     (Streamable HTTP on loopback)
 *   node examples/conformance-server/server.ts --stdio
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { boolean, choice, email, form, integer, number, text } from '../../src/schema/index.ts';
import { createServer, httpEntry, listen, stdio } from '../../src/server/index.ts';
import { memoryStore } from '../../src/store/index.ts';

const contact = form({ username: text({ title: 'Username' }), email: email({ title: 'Email' }) });
const defaults = form({
  name: text({ default: 'John Doe', optional: true }),
  age: integer({ default: 30, optional: true }),
  score: number({ default: 95.5, optional: true }),
  status: choice(['active', 'inactive', 'pending'], { default: 'active', optional: true }),
  verified: boolean({ default: true, optional: true }),
});
// Written as a raw requestedSchema: the legacy enumNames shape has no builder on purpose.
const enums = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      title: 'Untitled single',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      title: 'Titled single',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      title: 'Legacy',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      title: 'Untitled multi',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      title: 'Titled multi',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};
const name = form({ name: text({ title: 'Name' }) });

const show = (r: { action: string; content?: unknown }) =>
  `Elicitation completed: action=${r.action}, content=${JSON.stringify('content' in r ? r.content : {})}`;

// Tasks live in this process: the suite runs against one server that it starts afresh.
export const app = createServer({
  name: 'elicit-conformance',
  version: '1.0.0',
  tasks: { store: memoryStore() },
})
  // 2025-11-25
  .tool(
    'test_elicitation',
    {
      description: 'Asks for a username and email',
      inputSchema: z.object({ message: z.string() }),
    },
    async ({ message }, ask) => show(await ask.form('contact', contact, { message })),
  )
  .tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Defaults on every field type' },
    async (_args, ask) =>
      show(await ask.form('defaults', defaults, { message: 'Please review your profile' })),
  )
  .tool('test_elicitation_sep1330_enums', { description: 'Every enum shape' }, async (_args, ask) =>
    show(await ask.form('enums', enums, { message: 'Please choose' })),
  )
  // 2026-07-28
  .tool(
    'test_input_required_result_elicitation',
    { description: 'One form round' },
    async (_args, ask) => {
      const r = await ask.form('user_name', name, { message: 'What is your name?' });
      return r.action === 'accept' ? `Hello, ${r.content.name}!` : `No name (${r.action})`;
    },
  )
  .tool(
    'test_input_required_result_sampling',
    { description: 'One sampling round' },
    async (_args, ask) => {
      const r = await ask.sample('capital', {
        messages: [
          { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
        ],
        maxTokens: 100,
      });
      return `Model said: ${JSON.stringify(r.content)}`;
    },
  )
  .tool(
    'test_input_required_result_list_roots',
    { description: 'One roots round' },
    async (_args, ask) => {
      const r = await ask.roots('client_roots');
      return `Roots: ${r.roots.map((root) => root.uri).join(', ') || '(none)'}`;
    },
  )
  .tool(
    'test_input_required_result_request_state',
    { description: 'A round with requestState' },
    async (_args, ask) => {
      const r = await ask.form('confirm', form({ ok: boolean({ title: 'OK?' }) }), {
        message: 'Confirm?',
      });
      return r.action === 'accept' ? `Confirmed: ${r.content.ok}` : `Not confirmed (${r.action})`;
    },
  )
  .tool(
    'test_input_required_result_multiple_inputs',
    { description: 'Three kinds of input in one round' },
    async (_args, ask) => {
      const r = await ask.all({
        user_name: { form: name, message: 'What is your name?' },
        greeting: {
          sample: {
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
            maxTokens: 100,
          },
        },
        client_roots: { roots: true },
      });
      return `name=${r.user_name.action}, greeting=${r.greeting.role}, roots=${r.client_roots.roots.length}`;
    },
  )
  .tool(
    'test_input_required_result_multi_round',
    { description: 'Two rounds, then done' },
    async (_args, ask) => {
      const one = await ask.form('step1', name, { message: 'Step 1: your name?' });
      const two = await ask.form('step2', form({ color: text({ title: 'Color' }) }), {
        message: 'Step 2: favourite color?',
      });
      return `step1=${one.action}, step2=${two.action}`;
    },
  )
  .tool(
    'test_input_required_result_tampered_state',
    { description: 'State integrity' },
    async (_args, ask) => {
      const r = await ask.form('confirm', form({ ok: boolean() }), { message: 'Confirm?' });
      return `Done: ${r.action}`;
    },
  )
  .tool(
    'test_streaming_elicitation',
    { description: 'Asks a form: on 2026-07-28 the stream carries only the input_required result' },
    async (_args, ask) => {
      const r = await ask.form('user_name', name, { message: 'What is your name?' });
      return `form: ${r.action}`;
    },
  )
  .tool(
    'test_logging_tool',
    { description: 'Logs through the SDK, which sends it only at the level the request asked for' },
    async (_args, _ask, ctx) => {
      await ctx.mcpReq.log('info', 'a log line from test_logging_tool');
      return 'logged';
    },
  )
  .tool(
    'test_missing_capability',
    { description: 'Needs sampling; a client that did not declare it gets -32021' },
    async (_args, ask) => {
      const r = await ask.sample('needs_sampling', {
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
        maxTokens: 10,
      });
      return `sampled: ${r.role}`;
    },
  )
  .tool(
    'test_reconnection',
    {
      description:
        'Closes its SSE stream mid-call, then finishes: the client reconnects with Last-Event-ID for the result',
    },
    async (_args, _ask, ctx) => {
      ctx.http?.closeSSE?.();
      await sleep(100);
      return 'reconnected';
    },
  )
  .tool(
    'test_input_required_result_capabilities',
    { description: 'Asks only what the client declared' },
    async (_args, ask) => {
      if (ask.can('form')) {
        const r = await ask.form('user_name', name, { message: 'What is your name?' });
        return `form: ${r.action}`;
      }
      const r = await ask.sample('fallback', {
        messages: [{ role: 'user', content: { type: 'text', text: 'Pick a name' } }],
        maxTokens: 100,
      });
      return `sampling: ${r.role}`;
    },
  )
  // The tasks extension (2026-07-28): fixtures of the tasks-* scenarios.
  .tool(
    'greet',
    { description: 'Sync only', inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => `Hello, ${name}!`,
  )
  .tool(
    'slow_compute',
    {
      description: 'Sleeps `seconds`, then answers; a task when the client supports tasks',
      inputSchema: z.object({ seconds: z.number().optional(), label: z.string().optional() }),
      task: 'optional',
    },
    async ({ seconds, label }, _ask, ctx) => {
      await sleep((seconds ?? 0) * 1000, undefined, { signal: ctx.mcpReq.signal });
      return `Computed ${label ?? 'result'} after ${seconds ?? 0}s`;
    },
  )
  .tool(
    'failing_job',
    { description: 'Always fails as a tool (isError); runs only as a task', task: 'required' },
    async () => {
      await sleep(1000);
      return { content: [{ type: 'text', text: 'The job failed' }], isError: true };
    },
  )
  .tool(
    'protocol_error_job',
    { description: 'Fails with a protocol error', task: 'optional' },
    async () => {
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'The job broke down');
    },
  )
  .tool(
    'confirm_delete',
    {
      description: 'Asks to confirm, then deletes (pretend)',
      inputSchema: z.object({ filename: z.string() }),
      task: 'optional',
    },
    async ({ filename }, ask) => {
      const r = await ask.form('confirm', form({ confirm: boolean({ title: 'Delete?' }) }), {
        message: `Delete ${filename}?`,
      });
      return r.action === 'accept' && r.content.confirm
        ? `Deleted ${filename}`
        : `Kept ${filename}`;
    },
  )
  .tool(
    'multi_input',
    { description: 'Asks two forms at once', task: 'optional' },
    async (_args, ask) => {
      const both = form({ name: text({ title: 'Name' }), confirm: boolean({ title: 'OK?' }) });
      const r = await ask.all({
        first: { form: both, message: 'First?' },
        second: { form: both, message: 'Second?' },
      });
      return `first=${r.first.action}, second=${r.second.action}`;
    },
  )
  .tool(
    'test_tool_with_task',
    {
      description: 'Asks a name in a round of the call, then goes on as a task',
      task: 'required',
      taskStart: 'background',
    },
    async (_args, ask) => {
      const r = await ask.form('user_name', name, { message: 'What is your name?' });
      await ask.background();
      return r.action === 'accept' ? `Hello, ${r.content.name}!` : `No name (${r.action})`;
    },
  )
  .prompt(
    'test_input_required_result_prompt',
    { description: 'A prompt that asks first' },
    async (_args, ask) => {
      const r = await ask.form('user_context', form({ context: text({ title: 'Context' }) }), {
        message: 'Any context?',
      });
      const context = r.action === 'accept' ? r.content.context : '(none)';
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `Context: ${context}` } }],
      };
    },
  );

if (import.meta.main && process.argv.includes('--stdio')) {
  stdio(app);
} else if (import.meta.main) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
  const server = await listen(httpEntry(app), { port });
  process.stdout.write(`${server.url.href}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
