/**
 * Regular-expression denial-of-service scenarios, run in a worker thread by pattern.test.ts so
 * that an engine that backtracks makes the test fail on its watchdog instead of hanging the
 * suite. Each scenario returns a plain JSON result for the test to assert on.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkSchema, compileSchema, type SchemaError } from '../../src/schema/index.ts';

const field = (pattern: string, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { a: { type: 'string', pattern, ...extra } },
});

/** Issue codes of validating `value` with generated code and with the closures. */
function validate(
  pattern: string,
  value: string,
  extra: Record<string, unknown> = {},
): { generated: string[]; closures: string[] } {
  const c = compileSchema(field(pattern, extra));
  return {
    generated: c.validate({ a: value }).map((i) => i.code),
    closures: c.validateByClosures({ a: value }).map((i) => i.code),
  };
}

const as40 = `${'a'.repeat(40)}!`;

export const SCENARIOS: Record<string, () => unknown> = {
  // A server's field whose default the client checks while compiling the request.
  'hostile default at compileSchema': () => {
    try {
      compileSchema(field('^(a+)+$', { default: as40 }));
      return 'compiled';
    } catch (e) {
      return (e as SchemaError).issues.map((i) => i.code);
    }
  },
  'nested quantifier, 40 a and !': () => validate('^(a+)+$', as40),
  'author pattern, 41 letters and a digit': () =>
    validate('^([A-Za-z]+ ?)+$', `${'a'.repeat(41)}1`),
  'overlapping alternation (a|a)*': () => validate('^(a|a)*$', as40),
  'prefix alternation (a|ab)*c': () => validate('(a|ab)*c', 'ab'.repeat(2000)),
  'unanchored (\\w+\\s?)*$': () => validate('(\\w+\\s?)*$', `${'a'.repeat(4000)}!`),
  'nested quantifier at the input limit': () => validate('^(a+)+$', `${'a'.repeat(4095)}!`),
  'one character over the input limit': () => validate('^(a+)+$', `${'a'.repeat(4096)}!`),
  // 1 802 steps per character × 490 positions, and compiling it: just within maxPatternWork.
  'costliest admitted pattern at its longest input': () =>
    validate('(?:[a-z]?){600}#', 'a'.repeat(489), { maxLength: 489 }),
  'widest pattern at the input limit is refused at check': () => {
    const r = checkSchema(field('(?:[a-z]?){1000}#'));
    return r.ok ? 'accepted' : r.errors.map((e) => e.code);
  },
  'backreference and lookaround are refused': () =>
    ['^(a+)+\\1$', '^(?=(a+)+$)a', '(?<=(a+)+)b', '(?<n>a)\\k<n>'].map((p) => {
      const r = checkSchema(field(p));
      return r.ok ? 'accepted' : r.errors.map((e) => e.code).join();
    }),
};

if (parentPort !== null) {
  const name = workerData as string;
  const run = SCENARIOS[name];
  parentPort.postMessage(run === undefined ? { missing: name } : { result: run() });
}
