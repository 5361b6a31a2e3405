/** Schema core: answer validation vs precompiled Ajv, and the cost of checking a schema. */
import { Ajv } from 'ajv';
import { default as addFormatsModule } from 'ajv-formats';
import { checkSchema, compileSchema } from '../src/schema/index.ts';
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
  alone(
    'worst case: (?:[a-z]?){1000}# (2 003 states), 4 096 characters',
    '(?:[a-z]?){1000}#',
    'a'.repeat(4096),
  );
  return rows;
}
