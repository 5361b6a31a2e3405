/** Schema core: answer validation vs precompiled Ajv, and the cost of checking a schema. */
import { Ajv } from 'ajv';
import { default as addFormatsModule } from 'ajv-formats';
import { checkSchema, compileSchema, DEFAULT_LIMITS } from '../src/schema/index.ts';
import { COMPILE_STEPS } from '../src/schema/pattern.ts';
import { buildProgram } from '../src/schema/pattern-nfa.ts';
import { parsePattern } from '../src/schema/pattern-parse.ts';
import { pair, type Row, single } from './harness.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const five = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    color: { type: 'string', enum: ['red', 'green', 'blue'] },
    subscribe: { type: 'boolean' },
  },
  required: ['name', 'email', 'age'],
} as const;

const ten = {
  type: 'object',
  properties: {
    ...five.properties,
    nickname: { type: 'string', maxLength: 20, default: 'pal' },
    born: { type: 'string', format: 'date' },
    seat: {
      type: 'string',
      oneOf: [
        { const: 'w', title: 'Window' },
        { const: 'a', title: 'Aisle' },
      ],
    },
    extras: {
      type: 'array',
      items: { type: 'string', enum: ['wifi', 'meal', 'bag'] },
      maxItems: 2,
    },
    score: { type: 'number', minimum: 0, maximum: 10, default: 5 },
  },
  required: ['name', 'email', 'age'],
} as const;

export default function run(): Row[] {
  const ours = compileSchema(five);
  const ajvFirst = addFormats(new Ajv());
  const ajvAll = addFormats(new Ajv({ allErrors: true }));
  // Ajv with the subset's own rule (no unknown keys) so both do the same work.
  const strictSchema = { ...five, additionalProperties: false };
  const vFirst = ajvFirst.compile(strictSchema);
  const vAll = ajvAll.compile(strictSchema);
  const valid = { name: 'Ann', email: 'ann@example.com', age: 42, color: 'green', subscribe: true };
  const invalid = { name: '', email: 'nope', age: 200.5, color: 'pink', extra: 1 };
  if (
    ours.validate(valid).length !== 0 ||
    !vFirst(valid) ||
    ours.validate(invalid).length === 0 ||
    vAll(invalid)
  ) {
    throw new Error('benchmark inputs are not what they claim');
  }
  const rows: Row[] = [];
  rows.push(
    pair(
      'schema: validate 5 fields',
      'valid',
      { name: 'elicit validate', run: () => ours.validate(valid) },
      {
        name: 'Ajv precompiled + ajv-formats',
        run: () => vFirst(valid),
      },
      1.0,
    ),
  );
  rows.push(
    pair(
      'schema: validate 5 fields',
      'invalid, every error',
      { name: 'elicit validate', run: () => ours.validate(invalid) },
      {
        name: 'Ajv allErrors',
        run: () => vAll(invalid),
      },
      1.0,
    ),
  );
  rows.push(
    pair(
      'schema: validate 5 fields',
      'invalid, first error',
      { name: 'elicit validate (all errors)', run: () => ours.validate(invalid) },
      {
        name: 'Ajv default (stops at first)',
        run: () => vFirst(invalid),
      },
    ),
  );
  rows.push(...patternRows());
  rows.push(...worstFormRows());
  rows.push(
    single('schema: check', 'check a 10-field requested schema', () => checkSchema(ten), 5000),
  );
  rows.push(
    single('schema: check', 'compileSchema with a new but equal object (cache by content)', () =>
      compileSchema({ ...ten }),
    ),
  );
  return rows;
}

/** One text field with a pattern: elicit's linear matcher beside Ajv (the platform's RegExp). */
function patternRows(): Row[] {
  const one = (pattern: string) => ({
    type: 'object',
    properties: { v: { type: 'string', pattern } },
    required: ['v'],
  });
  const rows: Row[] = [];
  const versus = (name: string, pattern: string, value: string, valid: boolean) => {
    const ours = compileSchema(one(pattern));
    const ajv = new Ajv().compile({ ...one(pattern), additionalProperties: false });
    const answer = { v: value };
    if ((ours.validate(answer).length === 0) !== valid || ajv(answer) !== valid) {
      throw new Error(`benchmark input for ${pattern} is not what it claims`);
    }
    rows.push(
      pair(
        'schema: pattern',
        name,
        { name: 'elicit validate', run: () => ours.validate(answer) },
        { name: 'Ajv precompiled (platform RegExp)', run: () => ajv(answer) },
      ),
    );
  };
  versus('simple ^[A-Z]{3}-\\d{4}$, valid', '^[A-Z]{3}-\\d{4}$', 'ABC-1234', true);
  versus(
    'email-like ^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$, valid',
    '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
    'ann.lee@mail.example.org',
    true,
  );
  // The platform's RegExp doubles its time per added "a": 20 is the most a benchmark can wait for.
  versus('hostile ^(a+)+$, 20 a and !', '^(a+)+$', `${'a'.repeat(20)}!`, false);
  const alone = (name: string, pattern: string, value: string) => {
    const ours = compileSchema(one(pattern));
    const answer = { v: value };
    if (ours.validate(answer)[0]?.code !== 'pattern') throw new Error(`${pattern} should refuse`);
    rows.push(single('schema: pattern', name, () => ours.validate(answer)));
  };
  alone('hostile ^(a+)+$, 40 a and ! (platform RegExp: hours)', '^(a+)+$', `${'a'.repeat(40)}!`);
  alone('hostile ^(a+)+$, 4 095 a and ! (the input limit)', '^(a+)+$', `${'a'.repeat(4095)}!`);
  alone(
    'author ^([A-Za-z]+ ?)+$, 41 letters and a digit',
    '^([A-Za-z]+ ?)+$',
    `${'a'.repeat(41)}1`,
  );
  // Over limits.maxPatternWork: refused when checked, before any default is tested.
  const hostile = `[${Array.from({ length: 1000 }, (_, i) => String.fromCodePoint(0x4e00 + 2 * i)).join('')}]{2000}`;
  const three = {
    type: 'object',
    properties: Object.fromEntries(
      ['a', 'b', 'c'].map((k) => [
        k,
        { type: 'string', pattern: hostile, default: '一'.repeat(4096) },
      ]),
    ),
  };
  if (checkSchema(three).ok) throw new Error('the over-budget form should be refused');
  rows.push(
    single('schema: pattern', 'over budget: 3 × [1 000 code points]{2000}, refused at check', () =>
      checkSchema(three),
    ),
  );
  return rows;
}

/**
 * The costliest forms limits.maxPatternWork admits, as a client meets them: the request arrives
 * (compileSchema: check, every default tested, validators built; a new schema each time, so no
 * cache helps) and the answer is validated. Each pattern keeps every state live at every
 * position and matches only at the last character, and each field's maxLength is the longest
 * the budget allows. Target: 50 ms for both together.
 */
function worstFormRows(): Row[] {
  const budget = DEFAULT_LIMITS.maxPatternWork;
  const thousand = (from: number) =>
    `[${Array.from({ length: 1000 }, (_, i) => String.fromCodePoint(from + 2 * i)).join('')}]`;
  const program = (pattern: string) => {
    const parsed = parsePattern(pattern);
    if (!parsed.ok) throw new Error(parsed.reason);
    return buildProgram(parsed.node);
  };
  /** `fields` fields of `pattern(i)`, each answered by `unit(i)` repeated, then "#". */
  const shape = (fields: number, pattern: (i: number) => string, unit: (i: number) => string) => {
    const p = program(pattern(0));
    const compiling = COMPILE_STEPS * (p.kind.length + pattern(0).length);
    const length = Math.floor((budget / fields - compiling) / p.weight) - 1;
    const value = (i: number) => `${unit(i).repeat(length - 1)}#`;
    const names = Array.from({ length: fields }, (_, i) => i);
    return {
      properties: (salt: number) =>
        Object.fromEntries(
          names.map((i) => [
            `f${i}`,
            {
              type: 'string',
              pattern: pattern(i),
              maxLength: length,
              title: `${salt}`,
              default: value(i),
            },
          ]),
        ),
      answer: Object.fromEntries(names.map((i) => [`f${i}`, value(i)])),
    };
  };
  const candidates: [string, ReturnType<typeof shape>][] = [
    [
      '(?:[a-z]?){600}#',
      shape(
        1,
        () => '(?:[a-z]?){600}#',
        () => 'a',
      ),
    ],
    [
      '(?:a*){600}#',
      shape(
        1,
        () => '(?:a*){600}#',
        () => 'a',
      ),
    ],
    [
      '(?:[1 000 code points]?){600}#',
      shape(
        1,
        (i) => `(?:${thousand(0x4e00 + i)}?){600}#`,
        () => '一',
      ),
    ],
    [
      '(?:[\\p{L}\\d]?){600}#',
      shape(
        1,
        () => '(?:[\\p{L}\\d]?){600}#',
        () => 'é',
      ),
    ],
    [
      '5 fields, each (?:[its own 1 000]?){300}#',
      shape(
        5,
        (i) => `(?:${thousand(0x4e00 + i)}?){300}#`,
        (i) => String.fromCodePoint(0x4e00 + i),
      ),
    ],
    [
      '100 fields, each (?:[a-z]?){20}#',
      shape(
        100,
        () => '(?:[a-z]?){20}#',
        () => 'a',
      ),
    ],
  ];
  const rows: Row[] = [];
  let salt = 0;
  for (const [name, { properties, answer }] of candidates) {
    const schema = (n: number) => ({ type: 'object', properties: properties(n) });
    const checked = checkSchema(schema(0));
    if (!checked.ok) throw new Error(`${name} is not admitted: ${checked.errors[0]?.message}`);
    const compiled = compileSchema(schema(-1));
    if (compiled.validate(answer).length !== 0) throw new Error(`${name}: the answer should pass`);
    const arrive = cpuAndWall(() => compileSchema(schema(++salt)));
    const answered = cpuAndWall(() => compiled.validate(answer));
    const row = (what: string, value: number, target?: boolean): Row => ({
      group: 'schema: worst admitted form',
      name: `${name}: ${what}`,
      value,
      unit: 'ns/op',
      ...(target === true ? { target: '≤ 50 ms', met: value <= 50e6 } : {}),
    });
    rows.push(
      row('request arrives (wall)', arrive.wall),
      row('answer validated (wall)', answered.wall),
      row('both: client blocked (wall)', arrive.wall + answered.wall, true),
      row('both: client blocked (CPU)', arrive.cpu + answered.cpu, true),
    );
  }
  return rows;
}

/**
 * Median wall and CPU nanoseconds of single calls of `fn` (each long enough to time alone). CPU
 * time is this process's own: on a shared machine wall time also counts waiting for a core.
 */
function cpuAndWall(fn: () => unknown): { wall: number; cpu: number } {
  for (let i = 0; i < 3; i++) fn();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < 15; i++) {
    const used = process.cpuUsage();
    const start = process.hrtime.bigint();
    fn();
    walls.push(Number(process.hrtime.bigint() - start));
    const d = process.cpuUsage(used);
    cpus.push((d.user + d.system) * 1000);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return { wall: median(walls), cpu: median(cpus) };
}
