/**
 * The pattern cost model: each pattern's steps per test are known when it is compiled, and a
 * field or a form over limits.maxPatternWork is refused before anything runs. Only the model is
 * asserted here; the time it stands for is measured in bench/validation.bench.ts.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attachElicitation, scriptedRenderer } from '../../src/client/index.ts';
import { form, text } from '../../src/schema/builders.ts';
import {
  checkSchema,
  compilePattern,
  DEFAULT_LIMITS,
  PatternError,
} from '../../src/schema/index.ts';
import { COMPILE_STEPS } from '../../src/schema/pattern.ts';
import { buildProgram } from '../../src/schema/pattern-nfa.ts';
import { parsePattern } from '../../src/schema/pattern-parse.ts';

/** A class of 1 000 single code points (every other CJK ideograph from U+4E00). */
const THOUSAND = `[${Array.from({ length: 1000 }, (_, i) => String.fromCodePoint(0x4e00 + 2 * i)).join('')}]`;
const HOSTILE = `${THOUSAND}{2000}`;
const LAST = String.fromCodePoint(0x4e00 + 2 * 999);

const program = (pattern: string) => {
  const parsed = parsePattern(pattern);
  if (!parsed.ok) throw new Error(parsed.reason);
  return buildProgram(parsed.node);
};
const weight = (pattern: string) => program(pattern).weight;
/** The model: weight × positions, plus COMPILE_STEPS per state and source character. */
const model = (pattern: string, maxLength: number | undefined) =>
  weight(pattern) * (Math.min(maxLength ?? Infinity, DEFAULT_LIMITS.maxPatternInput) + 1) +
  COMPILE_STEPS * (program(pattern).kind.length + pattern.length);

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const errors = (properties: Record<string, unknown>) => {
  const r = checkSchema(schema(properties));
  return r.ok ? [] : r.errors.map((e) => `${e.code} ${e.path.join('.')}`);
};

describe('the weight of a position', () => {
  it('is one step per state, two per split, and each distinct class tested once', () => {
    expect(weight('a{2000}')).toBe(2001);
    expect(weight('[a-z]{2000}')).toBe(2001);
    // 2 000 states share one class of 1 000 ranges: log2(1 000) + 1 more, not 2 000 × 1 000.
    expect(weight(HOSTILE)).toBe(2001 + 11);
    expect(weight('(?:[a-z]?){1000}#')).toBe(1000 + 2 * 1000 + 2);
    expect(weight('\\p{L}{100}')).toBe(101 + 16);
    expect(weight('[a-c][a-c]')).toBe(weight('[abc][cba]') - 0);
  });
  it('the issue\u2019s pattern is within every other limit, and over the work budget', () => {
    expect(HOSTILE.length).toBe(1008);
    expect(HOSTILE.length).toBeLessThanOrEqual(DEFAULT_LIMITS.maxPatternLength);
    expect(weight(HOSTILE)).toBeLessThanOrEqual(DEFAULT_LIMITS.maxPatternStates + 11);
    expect(() => compilePattern(HOSTILE, DEFAULT_LIMITS)).toThrow(
      expect.objectContaining({ code: 'ELICIT_PATTERN_TOO_COSTLY' }),
    );
    expect(() => compilePattern(HOSTILE, DEFAULT_LIMITS)).toThrow(
      /can take 8\.44 million matcher steps on 4096 characters \(2012 per character, and compiling it\), more than limits\.maxPatternWork \(1 million\)/,
    );
  });
  it('a smaller maxLength admits the same pattern, and the test then refuses longer input', () => {
    const p = compilePattern(HOSTILE, DEFAULT_LIMITS, 400);
    expect(p.steps).toBe(2012 * 401 + COMPILE_STEPS * (2001 + 1008));
    expect(p.steps).toBe(model(HOSTILE, 400));
    expect(p.test(LAST.repeat(400))).toBe(false);
    expect(() => p.test(LAST.repeat(401))).toThrow(PatternError);
    expect(() => p.test(LAST.repeat(401))).toThrow(/longer than the 400/);
    // Code points, not UTF-16 units: 900 astral characters are 1 800 units and allowed.
    expect(compilePattern('^\\p{So}*$', DEFAULT_LIMITS, 900).test('😀'.repeat(900))).toBe(true);
  });
});

describe('checkSchema refuses a field or a form over the budget, before running anything', () => {
  it('one field: pattern_too_costly at its pattern, naming what to change', () => {
    const r = checkSchema(schema({ a: { type: 'string', pattern: HOSTILE, default: LAST } }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.code).toBe('pattern_too_costly');
    expect(r.errors[0]?.path).toEqual(['properties', 'a', 'pattern']);
    expect(r.errors[0]?.message).toMatch(/give the field a smaller maxLength/);
  });
  it('ten such fields with 4 096-character defaults: ten refusals, no default tested', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [
        `f${i}`,
        { type: 'string', pattern: HOSTILE, default: LAST.repeat(4096) },
      ]),
    );
    expect(errors(properties)).toEqual(
      Array.from({ length: 10 }, (_, i) => `pattern_too_costly properties.f${i}.pattern`),
    );
  });
  it('fields each within the budget but together over it: form_too_costly', () => {
    // Each 2 012 × 301 + 64 × 3 009 ≈ 0.8 million steps; two of them are over 1 million.
    const one = { type: 'string', pattern: HOSTILE, maxLength: 300 };
    expect(errors({ a: one })).toEqual([]);
    const r = checkSchema(schema({ a: one, b: one, c: { type: 'string', pattern: '^x$' } }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    // c comes after the sum is over: it is not even compiled.
    expect(r.errors.map((e) => e.code)).toEqual(['form_too_costly']);
    expect(r.errors[0]?.path).toEqual(['properties']);
    expect(r.errors[0]?.message).toBe(
      `Checking an answer against this form's patterns can take 1.6 million matcher steps, more than limits.maxPatternWork (1 million); the costliest are "a" 798 thousand, "b" 798 thousand. Give those fields a smaller maxLength, simplify their patterns, or split the form.`,
    );
  });
  it('once the running sum is over, no further default is tested', () => {
    // b's default is invalid, but the form is already over budget when b is reached.
    const one = { type: 'string', pattern: HOSTILE, maxLength: 300 };
    const r = checkSchema(schema({ a: one, b: { ...one, default: 'x' } }));
    expect(r.ok ? [] : r.errors.map((e) => e.code)).toEqual(['form_too_costly']);
  });
  it('a raised budget admits it (the limit is the author’s to move)', () => {
    const r = checkSchema(schema({ a: { type: 'string', pattern: HOSTILE } }), {
      limits: { maxPatternWork: 10_000_000 },
    });
    expect(r.ok).toBe(true);
  });
  it('property: every form checkSchema admits costs at most maxPatternWork per answer', () => {
    const pattern = fc.constantFrom(
      '^[a-z]+$',
      'a{500}',
      '(?:[a-z]?){300}#',
      HOSTILE,
      `${THOUSAND}{50}`,
      '\\p{L}{200}',
      '^\\d{5}$',
    );
    const prop = fc.record({
      pattern,
      maxLength: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(prop, { minLength: 1, maxLength: 12 }), (props) => {
        const properties = Object.fromEntries(
          props.map((p, i) => [`f${i}`, { type: 'string', ...p }]),
        );
        const total = props.reduce((sum, p) => sum + model(p.pattern, p.maxLength), 0);
        expect(checkSchema(schema(properties)).ok).toBe(total <= DEFAULT_LIMITS.maxPatternWork);
      }),
      { numRuns: 200 },
    );
  });
});

describe('where the refusal reaches people', () => {
  it('server author: form() throws SchemaError naming the pattern', () => {
    expect(() => form({ a: text({ pattern: HOSTILE }) })).toThrow(/too_costly|maxPatternWork/);
  });
  it('client: a plain server sending three such fields gets -32602 with the reason, no UI', async () => {
    const server = new McpServer({ name: 'raw', version: '1' });
    server.registerTool('ask', {}, async (ctx) => {
      try {
        await ctx.mcpReq.elicitInput(
          {
            mode: 'form',
            message: 'Fill in',
            requestedSchema: {
              type: 'object',
              properties: Object.fromEntries(
                ['a', 'b', 'c'].map((k) => [
                  k,
                  { type: 'string', pattern: HOSTILE, default: LAST.repeat(2000) },
                ]),
              ),
            },
          } as never,
          { relatedRequestId: ctx.mcpReq.id },
        );
        return { content: [{ type: 'text', text: 'answered' }] };
      } catch (error) {
        const e = error as { code?: number; message: string };
        return { content: [{ type: 'text', text: `error ${e.code}: ${e.message}` }] };
      }
    });
    let shown = 0;
    const client = new Client({ name: 'host', version: '1' });
    const elicit = attachElicitation(client, {
      renderer: {
        ...scriptedRenderer(),
        form: async () => {
          shown++;
          return { action: 'cancel' };
        },
      },
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.connect(st);
    await client.connect(ct);
    const r = await elicit.callTool({ name: 'ask', arguments: {} });
    const text = (r.content as { text: string }[])[0]?.text ?? '';
    expect(text).toMatch(/^error -32602: /);
    expect(text).toMatch(/properties\.a\.pattern can take 8\.44 million matcher steps/);
    expect(shown).toBe(0);
    await client.close();
  });
});

describe('classes tested by bitmap and binary search agree with RegExp', () => {
  const point = fc.oneof(
    fc.integer({ min: 0, max: 0x7f }),
    fc.integer({ min: 0x80, max: 0x2fff }),
    fc.integer({ min: 0xe000, max: 0xffff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  );
  const range = fc
    .tuple(point, point)
    .map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a]));
  const esc = (cp: number) => `\\u{${cp.toString(16)}}`;
  const cls = fc
    .record({
      negate: fc.boolean(),
      ranges: fc.array(range, { minLength: 1, maxLength: 40 }),
      extra: fc.constantFrom('', '\\d', '\\w', '\\s', '\\p{L}', '\\P{Lu}'),
    })
    .map(
      ({ negate, ranges, extra }) =>
        `[${negate ? '^' : ''}${ranges.map(([a, b]) => (a === b ? esc(a) : `${esc(a)}-${esc(b)}`)).join('')}${extra}]`,
    );
  it('on random classes and code points, the boundaries included', () => {
    fc.assert(
      fc.property(cls, fc.array(point, { minLength: 1, maxLength: 30 }), (source, points) => {
        const pattern = `^${source}{2}$`;
        const ours = compilePattern(pattern, DEFAULT_LIMITS);
        const native = new RegExp(pattern, 'u');
        const bounds = [...source.matchAll(/\\u\{([0-9a-f]+)\}/g)].flatMap((m) => {
          const cp = Number.parseInt(m[1] as string, 16);
          return [cp - 1, cp, cp + 1].filter(
            (c) => c >= 0 && c <= 0x10ffff && (c < 0xd800 || c > 0xdfff),
          );
        });
        for (const cp of [...points, ...bounds]) {
          // V8 leaves U+10FFFF out of a negated class whose range ends at U+10FFFE
          // (/[^\u{10}-\u{10fffe}]/u); ECMA-262, and this matcher, keep it in.
          if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0x10ffff) continue;
          const s = String.fromCodePoint(cp).repeat(2);
          if (ours.test(s) !== native.test(s)) return false;
        }
        return true;
      }),
      { numRuns: 1500 },
    );
  });
});
