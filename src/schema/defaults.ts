import { hasOwnValue, setOwn } from '../kernel/own.ts';
import type { CheckedSchema } from './check.ts';
import type { AnswerValue, Content } from './types.ts';

/**
 * Returns a copy of `partial` with each missing field set to its `default`. Fields the answer
 * already has, and fields without a default, are left as they are.
 */
export function applyDefaults(
  schema: CheckedSchema,
  partial: Readonly<Record<string, unknown>> = {},
): Content {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(partial)) setOwn(out, key, partial[key]);
  for (const field of schema.fields) {
    if (field.default === undefined || hasOwnValue(out, field.name)) continue;
    const d = field.default;
    setOwn(out, field.name, (Array.isArray(d) ? [...d] : d) as AnswerValue);
  }
  return out as Content;
}
