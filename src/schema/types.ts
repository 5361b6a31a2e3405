/**
 * Wire shapes of the restricted schema (union of every revision; `pattern` is an extension
 * the 2025-11-25 spec text shows but no schema.ts defines) and the normalised field model the
 * rest of elicit works with.
 */

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';
export const STRING_FORMATS: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time'];

interface Described {
  title?: string;
  description?: string;
}
export interface StringSchema extends Described {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: StringFormat;
  default?: string;
}
export interface NumberSchema extends Described {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}
export interface BooleanSchema extends Described {
  type: 'boolean';
  default?: boolean;
}
export interface UntitledSingleSelectEnumSchema extends Described {
  type: 'string';
  enum: string[];
  default?: string;
}
export interface LegacyTitledEnumSchema extends Described {
  type: 'string';
  enum: string[];
  enumNames?: string[];
  default?: string;
}
export interface TitledOption {
  const: string;
  title: string;
}
export interface TitledSingleSelectEnumSchema extends Described {
  type: 'string';
  oneOf: TitledOption[];
  default?: string;
}
export interface UntitledMultiSelectEnumSchema extends Described {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
}
export interface TitledMultiSelectEnumSchema extends Described {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { anyOf: TitledOption[] };
  default?: string[];
}
export type PrimitiveSchemaDefinition =
  | StringSchema
  | NumberSchema
  | BooleanSchema
  | UntitledSingleSelectEnumSchema
  | LegacyTitledEnumSchema
  | TitledSingleSelectEnumSchema
  | UntitledMultiSelectEnumSchema
  | TitledMultiSelectEnumSchema;

export interface RequestedSchema {
  $schema?: string;
  type: 'object';
  properties: Record<string, PrimitiveSchemaDefinition>;
  required?: string[];
}

/** One answer value. */
export type AnswerValue = string | number | boolean | string[];
/** The `content` of an accepted form elicitation. */
export type Content = Record<string, AnswerValue>;

// ---- normalised model ----

interface FieldBase {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string | undefined;
  readonly required: boolean;
}
export interface TextField extends FieldBase {
  readonly kind: 'text';
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  readonly pattern: string | undefined;
  readonly format: StringFormat | undefined;
  readonly default: string | undefined;
}
export interface NumberField extends FieldBase {
  readonly kind: 'number';
  readonly integer: boolean;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
  readonly default: number | undefined;
}
export interface BooleanField extends FieldBase {
  readonly kind: 'boolean';
  readonly default: boolean | undefined;
}
export interface Option {
  readonly value: string;
  /** What a person sees: the option's title, or its value when untitled. */
  readonly label: string;
}
/** How a single-select was written on the wire. */
export type SelectStyle = 'enum' | 'oneOf' | 'enumNames';
export interface SelectField extends FieldBase {
  readonly kind: 'select';
  readonly style: SelectStyle;
  readonly options: readonly Option[];
  readonly default: string | undefined;
}
/** How a multi-select was written on the wire. */
export type MultiSelectStyle = 'enum' | 'anyOf';
export interface MultiSelectField extends FieldBase {
  readonly kind: 'multiselect';
  readonly style: MultiSelectStyle;
  readonly options: readonly Option[];
  readonly minItems: number | undefined;
  readonly maxItems: number | undefined;
  readonly default: readonly string[] | undefined;
}
export type Field = TextField | NumberField | BooleanField | SelectField | MultiSelectField;
export type FieldKind = Field['kind'];
