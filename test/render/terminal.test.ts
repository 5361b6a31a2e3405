/**
 * The shared form cases through the terminal renderer, typed key by key into its input stream.
 * Each prompt starts where the renderer puts it (an optional choice on "Leave empty", multi-select
 * ticks as last entered), so a renderer that forgot what was entered sends the wrong answer.
 */
import { PassThrough } from 'node:stream';
import { terminalRenderer } from '../../src/client/terminal.ts';
import type { CompiledSchema, Field } from '../../src/schema/index.ts';
import { type Case, rendererSuite, type Step } from './cases.ts';

const ENTER = '\r';
const DOWN = '\u001b[B';
const SPACE = ' ';
const BACKSPACE = '\u007f';

/** Down presses from one option to another in a list that wraps around. */
const moves = (from: number, to: number, n: number) =>
  Array((((to - from) % n) + n) % n).fill(DOWN);

/** Keys that take a multi-select from `had` ticks to `want` (the cursor starts on the first option). */
function ticks(
  f: Field & { kind: 'multiselect' },
  had: readonly string[],
  want: readonly string[],
) {
  const keys: string[] = [];
  f.options.forEach((o, i) => {
    if (had.includes(o.value) !== want.includes(o.value)) keys.push(SPACE);
    if (i < f.options.length - 1) keys.push(DOWN);
  });
  return [...keys, ENTER];
}

function keysFor(f: Field, step: Step, initial: Record<string, unknown>): string[] {
  const current = Object.hasOwn(initial, f.name) ? initial[f.name] : undefined;
  if ('keep' in step) return [ENTER];
  if (f.kind === 'multiselect' && 'tick' in step) {
    const had = Array.isArray(current) ? (current as string[]) : [];
    if (step.first === undefined) return ticks(f, had, step.tick);
    // After the error the prompt comes back with the invalid ticks still on.
    return [...ticks(f, had, step.first), ...ticks(f, step.first, step.tick)];
  }
  if ((f.kind === 'text' || f.kind === 'number') && 'type' in step) {
    const clear = (text: string) => Array(text.length).fill(BACKSPACE);
    const prefill = current === undefined ? '' : String(current);
    if (step.first === undefined) return [...clear(prefill), step.type, ENTER];
    return [...clear(prefill), step.first, ENTER, ...clear(step.first), step.type, ENTER];
  }
  if (f.kind === 'boolean' && 'yes' in step) {
    // Yes, No, then Leave empty for an optional field (where it starts when there is no value).
    const n = f.required ? 2 : 3;
    const start = current === true ? 0 : current === false ? 1 : f.required ? 0 : 2;
    const to = step.yes === true ? 0 : step.yes === false ? 1 : 2;
    return [...moves(start, to, n), ENTER];
  }
  if (f.kind === 'select' && 'pick' in step) {
    const n = f.options.length + (f.required ? 0 : 1);
    const at = f.options.findIndex((o) => o.value === current);
    const start = at !== -1 ? at : f.required ? 0 : f.options.length;
    const to =
      step.pick === null ? f.options.length : f.options.findIndex((o) => o.value === step.pick);
    return [...moves(start, to, n), ENTER];
  }
  throw new Error(`step ${JSON.stringify(step)} does not fit a ${f.kind} field`);
}

rendererSuite('terminal', {
  async run(c: Case, schema: CompiledSchema, initial) {
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (d: Buffer) => {
      screen += d.toString();
    });
    const renderer = terminalRenderer({ input, output, color: false });
    const done = renderer.form(
      {
        server: { name: 'test-server' },
        message: 'Please answer',
        schema,
        issues: [],
        initial,
        attempt: 1,
      },
      new AbortController().signal,
    );
    const keys = schema.fields.flatMap((f, i) => keysFor(f, c.steps[i] as Step, initial));
    for (const k of [...keys, 's']) {
      await new Promise((r) => setTimeout(r, 15));
      input.write(k);
    }
    const response = await done;
    return {
      action: response.action,
      content: response.action === 'accept' ? JSON.stringify(response.content) : undefined,
      shown: screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''),
    };
  },
});
