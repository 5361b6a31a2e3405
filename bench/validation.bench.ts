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
