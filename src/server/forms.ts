/**
 * What `ask.form` accepts (a typed Form, a Standard Schema such as zod, or a raw
 * requestedSchema) turned into one shape: a compiled schema plus optional refinement.
 * Resolved once per form object and cached, so handlers may build forms per call.
 */

import { pooledRandom } from '../kernel/random.ts';
import {
  type CompiledSchema,
  compileSchema,
  type Form,
  fromStandardSchema,
  type ParseResult,
  type StandardSchemaLike,
} from '../schema/index.ts';
import { sensitiveKind } from '../schema/internal.ts';
import { AskUsageError, SensitiveFieldError } from './errors.ts';

export interface ResolvedForm {
  readonly schema: CompiledSchema;
  readonly refine:
    | ((value: never) => ParseResult<unknown> | Promise<ParseResult<unknown>>)
    | undefined;
}

/** Anything `ask.form` can take. */
export type FormInput<T = unknown> = Form<T> | StandardSchemaLike<T> | Record<string, unknown>;

const resolved = new WeakMap<object, ResolvedForm>();

function isForm(value: object): value is Form<unknown> {
  return 'schema' in value && 'requestedSchema' in value && 'parse' in value;
}

export function resolveForm(input: FormInput): ResolvedForm {
  if (input === null || typeof input !== 'object')
    throw new AskUsageError(
      'ask.form needs a form: a form() from elicit/schema, a zod object, or a requestedSchema.',
    );
  const hit = resolved.get(input);
  if (hit !== undefined) return hit;
  let out: ResolvedForm;
  if (isForm(input)) out = { schema: input.schema, refine: input.refine as ResolvedForm['refine'] };
  else if ('~standard' in input) {
    const { form } = fromStandardSchema(input as StandardSchemaLike);
    out = { schema: form.schema, refine: form.refine as ResolvedForm['refine'] };
  } else out = { schema: compileSchema(input), refine: undefined };
  resolved.set(input, out);
  return out;
}

// This process's part of every tag: a tag from another process (or an earlier run of this one)
// never names a form here.
const PROCESS = Buffer.from(pooledRandom(9)).toString('base64url');
const tags = new WeakMap<ResolvedForm, string>();
let tagged = 0;

/**
 * A name for one resolved form in this process, never given to another: the replay journal
 * keeps it beside an answer that form checked (`Journal.c`), so a later round asking the same
 * form takes the sealed answer as checked instead of checking it again.
 */
export function formTag(form: ResolvedForm): string {
  let tag = tags.get(form);
  if (tag === undefined) {
    tagged += 1;
    tag = `${PROCESS}.${tagged.toString(36)}`;
    tags.set(form, tag);
  }
  return tag;
}

/**
 * Refuses a form with a field that looks sensitive (the schema check's `sensitive_field`
 * warnings), unless the author listed that field in `allowSensitive`.
 */
export function refuseSensitive(
  key: string,
  form: ResolvedForm,
  allowSensitive: readonly string[] | undefined,
): void {
  const { warnings } = form.schema;
  if (warnings.length === 0) return;
  for (const w of warnings) {
    if (w.code !== 'sensitive_field') continue;
    const name = String(w.path[1]);
    if (allowSensitive?.includes(name) === true) continue;
    const field = form.schema.field(name);
    throw new SensitiveFieldError(
      key,
      name,
      (field && sensitiveKind(field)) ?? 'sensitive information',
    );
  }
}
