/** A problem found in a requested schema, or a note about it. */
export interface SchemaIssue {
  /** Stable machine-readable code, e.g. `keyword_type`. */
  readonly code: SchemaIssueCode;
  /** Location in the requested schema, e.g. `["properties", "age", "minimum"]`. */
  readonly path: readonly (string | number)[];
  /** One sentence a person understands: what is wrong and what to do. */
  readonly message: string;
}

export type SchemaIssueCode =
  | 'not_object'
  | 'root_type'
  | 'properties'
  | 'required'
  | 'required_unknown'
  | 'required_duplicate'
  | 'property_name'
  | 'property_not_object'
  | 'property_type'
  | 'nested'
  | 'keyword_type'
  | 'keyword_range'
  | 'keyword_revision'
  | 'keyword_conflict'
  | 'keyword_unknown'
  | 'bounds_order'
  | 'options_empty'
  | 'option_invalid'
  | 'option_duplicate'
  | 'enum_names_length'
  | 'format_unknown'
  | 'pattern_invalid'
  | 'pattern_unsupported'
  | 'pattern_too_complex'
  | 'pattern_too_costly'
  | 'form_too_costly'
  | 'pattern_backtracking'
  | 'default_invalid'
  | 'too_many_properties'
  | 'too_many_options'
  | 'too_long'
  | 'too_large'
  | 'too_deep'
  | 'sensitive_field'
  | 'more_issues';

/** A problem with one answer (`content`). */
export interface AnswerIssue {
  readonly code: AnswerIssueCode;
  /** Property the issue is about; `undefined` for the answer as a whole. */
  readonly field: string | undefined;
  /** Short text to show next to the field in a form. */
  readonly message: string;
}

export type AnswerIssueCode =
  | 'not_object'
  | 'required'
  | 'type'
  | 'integer'
  | 'min_length'
  | 'max_length'
  | 'pattern'
  | 'format'
  | 'minimum'
  | 'maximum'
  | 'option'
  | 'min_items'
  | 'max_items'
  | 'duplicate_item'
  | 'unknown_key'
  | 'too_large'
  | 'custom';

/** `["properties", "age"]` → `properties.age`; odd keys are quoted. */
export function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** Shortened, JSON-quoted rendering of a value for error messages. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text =
      typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  const t = typeof value;
  return t === 'object' ? 'an object' : t === 'undefined' ? 'nothing' : `a ${t}`;
}
