/**
 * Turns what a person typed into a field's value, for text UIs. Empty input means "no answer"
 * (the caller decides whether that is allowed); everything else either becomes a value of the
 * right type or an error message to show.
 */
import type { Field } from './types.ts';

export type CoerceResult =
  | { readonly ok: true; readonly value: string | number | boolean | string[] | undefined }
  | { readonly ok: false; readonly message: string };

const TRUE = new Set(['y', 'yes', 'true', 't', '1', 'on']);
const FALSE = new Set(['n', 'no', 'false', 'f', '0', 'off']);
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function pickOption(
  field: Extract<Field, { kind: 'select' | 'multiselect' }>,
  token: string,
): string | undefined {
  const t = token.trim();
  for (const o of field.options) if (o.value === t) return o.value;
  const lower = t.toLowerCase();
  const byLabel = field.options.filter(
    (o) => o.label.toLowerCase() === lower || o.value.toLowerCase() === lower,
  );
  if (byLabel.length === 1) return byLabel[0]?.value;
  if (/^\d+$/.test(t)) {
    const index = Number(t) - 1;
    return field.options[index]?.value;
  }
  return undefined;
}

export function coerceText(field: Field, text: string): CoerceResult {
  const trimmed = text.trim();
  if (trimmed === '' && field.kind !== 'text') return { ok: true, value: undefined };
  switch (field.kind) {
    case 'text':
      return { ok: true, value: text === '' ? undefined : text };
    case 'number': {
      const cleaned = trimmed.replace(/_/g, '');
      if (!DECIMAL.test(cleaned)) {
        return {
          ok: false,
          message: field.integer
            ? 'Enter a whole number, such as 42.'
            : 'Enter a number, such as 3.5.',
        };
      }
      const value = Number(cleaned);
      if (!Number.isFinite(value)) return { ok: false, message: 'That number is too large.' };
      if (field.integer && !Number.isInteger(value))
        return { ok: false, message: 'Enter a whole number, such as 42.' };
      return { ok: true, value };
    }
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (TRUE.has(lower)) return { ok: true, value: true };
      if (FALSE.has(lower)) return { ok: true, value: false };
      return { ok: false, message: 'Answer yes or no.' };
    }
    case 'select': {
      const value = pickOption(field, trimmed);
      return value === undefined
        ? {
            ok: false,
            message: `Choose one of: ${field.options.map((o, i) => `${i + 1}) ${o.label}`).join(', ')}.`,
          }
        : { ok: true, value };
    }
    case 'multiselect': {
      const values: string[] = [];
      for (const token of trimmed.split(',')) {
        if (token.trim() === '') continue;
        const value = pickOption(field, token);
        if (value === undefined)
          return {
            ok: false,
            message: `${JSON.stringify(token.trim())} is not one of the options.`,
          };
        if (!values.includes(value)) values.push(value);
      }
      return { ok: true, value: values };
    }
  }
}
