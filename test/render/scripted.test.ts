/** The shared form cases through the scripted renderer: answers are the person's entries. */
import { scriptedRenderer } from '../../src/client/scripted.ts';
import { type CompiledSchema, coerceText } from '../../src/schema/index.ts';
import { type Case, rendererSuite, type Step } from './cases.ts';

/** The value a step enters (`first` picks the invalid entry made before), or undefined to leave it out. */
function entry(schema: CompiledSchema, step: Step, first: boolean): { value: unknown } | undefined {
  if ('keep' in step) return undefined;
  if ('type' in step) {
    const field = schema.fields.find((f) => f.name === step.field);
    const coerced = coerceText(field as never, first ? (step.first ?? step.type) : step.type);
    return { value: coerced.ok ? coerced.value : undefined };
  }
  if ('pick' in step) return { value: step.pick ?? undefined };
  if ('yes' in step) return { value: step.yes ?? undefined };
  return { value: first ? (step.first ?? step.tick) : step.tick };
}

function content(entries: [string, { value: unknown }][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, e] of entries)
    Object.defineProperty(out, name, { value: e.value, enumerable: true, writable: true });
  return out;
}

rendererSuite('scripted', {
  async run(c: Case, schema, initial) {
    const at = (first: boolean, steps: readonly Step[]) =>
      content(
        steps.flatMap((s) => {
          const e = entry(schema, s, first);
          return e === undefined ? [] : [[s.field, e] as [string, { value: unknown }]];
        }),
      );
    const corrected = c.steps.filter((s) => 'first' in s && s.first !== undefined);
    const lines: string[] = [];
    const renderer = scriptedRenderer({
      answers: [
        { action: 'accept', content: at(true, c.steps) },
        ...(corrected.length === 0
          ? []
          : [{ action: 'accept' as const, content: at(false, corrected) }]),
      ],
      log: (line) => lines.push(line),
    });
    const response = await renderer.form(
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
    return {
      action: response.action,
      content: response.action === 'accept' ? JSON.stringify(response.content) : undefined,
      shown: lines.join('\n'),
    };
  },
});
