/**
 * The pattern matcher: linear time on the classic ReDoS shapes (in a worker with a watchdog, so
 * a backtracking regression fails instead of hanging), refusal of what it cannot run, and
 * agreement with the platform's RegExp on random patterns that are safe to backtrack.
 */
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  checkSchema,
  compilePattern,
  compileSchema,
  DEFAULT_LIMITS,
  fromJsonSchema,
  fromStandardSchema,
  PatternError,
  type SchemaError,
} from '../../src/schema/index.ts';

/** Hang guard, not a speed check: the old engine needed hours for these inputs. */
const WATCHDOG_MS = 15_000;

function inWorker(name: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./redos-scenarios.ts', import.meta.url), {
      workerData: name,
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`"${name}" still running after ${WATCHDOG_MS} ms: the matcher backtracks`));
    }, WATCHDOG_MS);
    worker.once('message', (m: { result?: unknown; missing?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (m.missing !== undefined) reject(new Error(`no scenario ${m.missing}`));
      else resolve(m.result);
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

const refused = { generated: ['pattern'], closures: ['pattern'] };

describe('ReDoS scenarios finish (worker + watchdog)', () => {
  it('a hostile default is refused while the client compiles the request', async () => {
    expect(await inWorker('hostile default at compileSchema')).toEqual(['default_invalid']);
  });
  it.each([
    'nested quantifier, 40 a and !',
    'author pattern, 41 letters and a digit',
    'overlapping alternation (a|a)*',
    'prefix alternation (a|ab)*c',
    'nested quantifier at the input limit',
  ])('%s: answered "pattern" on both validators', async (name) => {
    expect(await inWorker(name)).toEqual(refused);
  });
  it('a match found at the end of 4 000 characters', async () => {
    expect(await inWorker('unanchored (\\w+\\s?)*$')).toEqual({ generated: [], closures: [] });
  });
  it('the costliest admitted pattern on its longest input', async () => {
    expect(await inWorker('costliest admitted pattern at its longest input')).toEqual(refused);
  });
  it('the most states on the longest input is refused when checked', async () => {
    expect(await inWorker('widest pattern at the input limit is refused at check')).toEqual([
      'pattern_too_costly',
    ]);
  });
  it('an answer longer than maxPatternInput is refused untested', async () => {
    expect(await inWorker('one character over the input limit')).toEqual({
      generated: ['too_large'],
      closures: ['too_large'],
    });
  });
  it('backreferences and lookaround are refused at check, never run', async () => {
    expect(await inWorker('backreference and lookaround are refused')).toEqual([
      'pattern_unsupported',
      'pattern_unsupported',
      'pattern_unsupported',
      'pattern_unsupported',
    ]);
  });
});

const codes = (pattern: string, limits = {}) => {
  const r = checkSchema(
    { type: 'object', properties: { a: { type: 'string', pattern } } },
    { limits },
  );
  return r.ok ? [] : r.errors.map((e) => `${e.code}: ${e.message}`);
};

describe('what the checker refuses', () => {
  it('names the construct and where it is', () => {
    expect(codes('^(\\w+)\\s\\1$')).toEqual([
      'pattern_unsupported: properties.a.pattern uses a backreference (at character 11), which the linear-time matcher cannot run; rewrite it without backreferences, lookaround or inline modifiers.',
    ]);
    expect(codes('^(?!admin)')[0]).toMatch(/^pattern_unsupported: .* lookahead/);
    expect(codes('(?<!x)y')[0]).toMatch(/^pattern_unsupported: .* lookbehind/);
    expect(codes('(?i:abc)')[0]).toMatch(/^pattern_unsupported: .* inline modifier/);
  });
  it('invalid syntax stays pattern_invalid', () => {
    expect(codes('a{2,1}')[0]).toMatch(/^pattern_invalid: properties\.a\.pattern is not a valid/);
    expect(codes('\\q')[0]).toMatch(/^pattern_invalid/);
  });
  it('counts that would need too many states are pattern_too_complex', () => {
    expect(codes('^[a-z]{2048}$')[0]).toBe(
      'pattern_too_complex: properties.a.pattern needs 2051 matcher states, more than limits.maxPatternStates (2048); use smaller {counts}.',
    );
    expect(codes('((a{1000}){1000}){1000}')[0]).toMatch(/over a billion/);
    expect(codes('^[a-z]{2048}$', { maxPatternStates: 4096, maxPatternWork: 1e7 })).toEqual([]);
  });
  it('compilePattern throws PatternError for what checkSchema refuses, and for long input', () => {
    expect(() => compilePattern('(a)\\1', DEFAULT_LIMITS)).toThrow(PatternError);
    const p = compilePattern('^a+$', { maxPatternStates: 16, maxPatternInput: 8 });
    expect(p.test('aaaaaaaa')).toBe(true);
    expect(() => p.test('aaaaaaaaa')).toThrow(/longer than limits\.maxPatternInput \(8\)/);
  });
  it('a pattern field reports the lower of the two length limits', () => {
    const c = compileSchema(
      { type: 'object', properties: { a: { type: 'string', pattern: 'x' } } },
      { limits: { maxPatternInput: 10 } },
    );
    expect(c.validate({ a: 'x'.repeat(11) })[0]?.message).toBe('Enter at most 10 characters.');
  });
});

describe('agrees with RegExp', () => {
  const cases: [string, string[]][] = [
    ['^\\p{Lu}\\p{Ll}+$', ['Émile', 'émile', 'Ωmega', 'A']],
    ['^[\\p{L}\\d ]+$', ['Zoë 42', 'Zoë_42']],
    ['^\\P{L}$', ['1', 'a', '😀']],
    ['^.{2}$', ['😀😀', '😀', 'a\n']],
    ['^\\u{1F600}|\\uD83D\\uDE01$', ['😀x', 'x😁', '\uD83D']],
    ['\\bcat\\b', ['a cat.', 'concat', 'cat']],
    ['\\Bat', ['cat', 'at']],
    ['^[\\w.+-]+@[\\w-]+(\\.[\\w-]+)+$', ['ann.lee+x@mail.example.org', 'a@b', '@b.c']],
    ['^[^\\s]{3,5}$', ['abc', 'ab', 'abcdef', 'a c']],
    ['^\\x41\\u0042\\cJ\\0$', ['AB\n\0', 'AB\n']],
    ['^[\\]\\-\\\\^]+$', [']-\\^', 'a']],
    ['^(?<year>\\d{4})-(?:0[1-9]|1[0-2])$', ['2025-12', '2025-13']],
    ['a{0}b', ['b', 'ab']],
    ['^(?:)$', ['', 'a']],
    ['^[^]$', ['a', '\n', '']],
    ['^[]$', ['a', '']],
  ];
  it.each(cases)('%s', (pattern, inputs) => {
    const ours = compilePattern(pattern, DEFAULT_LIMITS);
    const native = new RegExp(pattern, 'u');
    for (const input of inputs) expect(ours.test(input), input).toBe(native.test(input));
  });

  // Random patterns over a tiny alphabet; inputs of at most 10 characters keep the platform's
  // backtracking bounded, so it can serve as the reference.
  const atom = fc.constantFrom(
    'a',
    'b',
    '.',
    '[ab]',
    '[^a]',
    '[a-c]',
    '\\d',
    '\\w',
    '\\W',
    '\\s',
    '\\S',
    '\\p{L}',
    '[\\p{N}a]',
    '😀',
    '\\n',
  );
  const assertion = fc.constantFrom('^', '$', '\\b', '\\B');
  const quant = fc.constantFrom('*', '+', '?', '{2}', '{0,2}', '{1,}', '*?', '+?', '{1,3}?');
  const regex: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      assertion,
      fc.tuple(atom, quant).map(([a, q]) => a + q),
      fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((xs) => xs.join('')),
      fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((xs) => `(?:${xs.join('|')})`),
      fc.tuple(tie('node'), quant).map(([n, q]) => `(${n})${q}`),
    ),
  })).node;
  const input = fc
    .array(fc.constantFrom('a', 'b', 'c', '1', ' ', '\n', '_', 'é', '😀'), { maxLength: 10 })
    .map((xs) => xs.join(''));

  it('on random patterns and inputs', () => {
    fc.assert(
      fc.property(regex, fc.array(input, { minLength: 1, maxLength: 8 }), (pattern, inputs) => {
        const ours = compilePattern(pattern, DEFAULT_LIMITS);
        const native = new RegExp(pattern, 'u');
        for (const s of inputs) {
          // V8 also tries \B inside a surrogate pair, which ECMA-262 (and this matcher) skip.
          if (pattern.includes('\\B') && s.includes('😀')) continue;
          if (ours.test(s) !== native.test(s)) return false;
        }
        return true;
      }),
      { numRuns: 3000 },
    );
  });
});

describe('Standard Schema import: the library’s own regex checks', () => {
  const issue = (schema: Parameters<typeof fromStandardSchema>[0]) => {
    try {
      fromStandardSchema(schema);
      return 'imported';
    } catch (e) {
      const first = (e as SchemaError).issues[0];
      return `${first?.code} ${first?.message}`;
    }
  };
  it('refuses exponentially ambiguous patterns that zod would run natively', () => {
    for (const re of [/^(a+)+$/, /^([A-Za-z]+ ?)+$/, /^(a|a)*$/, /(\w+\s?)*$/, /^(a*)*b$/]) {
      expect(issue(z.object({ v: z.string().regex(re) }))).toMatch(
        /^pattern_backtracking properties\.v\.pattern: zod would check .* exponential time/,
      );
    }
  });
  it('refuses what elicit cannot analyse', () => {
    expect(issue(z.object({ v: z.string().regex(/^(?!admin)\w+$/) }))).toMatch(
      /^pattern_unsupported .*lookahead/,
    );
  });
  it('accepts unambiguous patterns and zod’s own formats', () => {
    const schema = z.object({
      slug: z.string().regex(/^[a-z]+(-[a-z]+)*$/),
      mail: z.email(),
      day: z.iso.date(),
      at: z.iso.datetime(),
      id: z.uuid(),
    });
    expect(issue(schema)).toBe('imported');
  });
  it('zod only ever sees values elicit’s matcher accepted', async () => {
    const seen: string[] = [];
    const schema = z.object({
      slug: z
        .string()
        .regex(/^[a-z]+(-[a-z]+)*$/)
        .refine((v) => seen.push(v) > 0),
    });
    const { form: f } = fromStandardSchema(schema);
    const hostile = `${'a-'.repeat(2000)}!`;
    expect(f.schema.validate({ slug: hostile }).map((i) => i.code)).toEqual(['pattern']);
    expect(await f.refine?.({ slug: 'good-slug' })).toMatchObject({ ok: true });
    expect(seen).toEqual(['good-slug']);
  });
  it('a plain JSON Schema keeps any pattern elicit can run: no library runs it', () => {
    const { form: f } = fromJsonSchema({
      type: 'object',
      properties: { v: { type: 'string', pattern: '^(a+)+$' } },
    });
    expect(f.schema.validate({ v: `${'a'.repeat(40)}!` }).map((i) => i.code)).toEqual(['pattern']);
  });
});
