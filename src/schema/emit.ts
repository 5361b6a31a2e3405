/** Writes normalised fields back as a wire `requestedSchema` for one revision. */
import { setOwn } from './compile.ts';
import type { Field, PrimitiveSchemaDefinition, RequestedSchema } from './types.ts';

function described(field: Field): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (field.title !== undefined) out.title = field.title;
  if (field.description !== undefined) out.description = field.description;
  return out;
}

/** One field as the latest revision writes it (the caller lowers for older peers). */
export function emitField(field: Field): PrimitiveSchemaDefinition {
  const out = described(field);
  switch (field.kind) {
    case 'text':
      out.type = 'string';
      if (field.minLength !== undefined) out.minLength = field.minLength;
      if (field.maxLength !== undefined) out.maxLength = field.maxLength;
      if (field.pattern !== undefined) out.pattern = field.pattern;
      if (field.format !== undefined) out.format = field.format;
      break;
    case 'number':
      out.type = field.integer ? 'integer' : 'number';
      if (field.minimum !== undefined) out.minimum = field.minimum;
      if (field.maximum !== undefined) out.maximum = field.maximum;
      break;
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'select':
      out.type = 'string';
      if (field.style === 'oneOf')
        out.oneOf = field.options.map((o) => ({ const: o.value, title: o.label }));
      else out.enum = field.options.map((o) => o.value);
      if (field.style === 'enumNames') out.enumNames = field.options.map((o) => o.label);
      break;
    case 'multiselect':
      out.type = 'array';
      if (field.minItems !== undefined) out.minItems = field.minItems;
      if (field.maxItems !== undefined) out.maxItems = field.maxItems;
      out.items =
        field.style === 'anyOf'
          ? { anyOf: field.options.map((o) => ({ const: o.value, title: o.label })) }
          : { type: 'string', enum: field.options.map((o) => o.value) };
      break;
  }
  if (field.default !== undefined)
    out.default = Array.isArray(field.default) ? [...field.default] : field.default;
  return out as unknown as PrimitiveSchemaDefinition;
}

/** Fields → `requestedSchema` in the latest revision's terms (lower it with convertSchema). */
export function emitSchema(fields: readonly Field[]): RequestedSchema {
  const properties: Record<string, PrimitiveSchemaDefinition> = {};
  const required: string[] = [];
  for (const field of fields) {
    setOwn(properties, field.name, emitField(field));
    if (field.required) required.push(field.name);
  }
  const schema: RequestedSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  return schema;
}
