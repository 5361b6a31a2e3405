/**
 * elicit/schema: the restricted schema of form-mode elicitation, for every revision.
 * Pure: no Node-only imports, no dependency on the MCP SDK.
 */
export { ElicitError } from '../errors.ts';
export {
  boolean,
  choice,
  choices,
  date,
  dateTime,
  email,
  type FieldSpec,
  type Form,
  form,
  type Infer,
  integer,
  number,
  text,
  url,
} from './builders.ts';
export { type CheckedSchema, type CheckOptions, type CheckResult, checkSchema } from './check.ts';
export { type CoerceResult, coerceText } from './coerce.ts';
export {
  type CompiledSchema,
  type CompileOptions,
  compileSchema,
  type ParseResult,
  SchemaError,
} from './compile.ts';
export {
  type Conversion,
  ConversionError,
  type ConversionNote,
  type ConvertOptions,
  convertSchema,
} from './convert.ts';
export { applyDefaults } from './defaults.ts';
export { emitSchema } from './emit.ts';
export { checkFormat, isDate, isDateTime, isEmail, isUri } from './formats.ts';
export type { AnswerIssue, AnswerIssueCode, SchemaIssue, SchemaIssueCode } from './issues.ts';
export { formatPath } from './issues.ts';
export { DEFAULT_LIMITS, LimitOptionError, type Limits } from './limits.ts';
export {
  type CompiledPattern,
  compilePattern,
  PatternError,
  type PatternProblem,
  patternProblem,
} from './pattern.ts';
export {
  isRevision,
  LATEST_REVISION,
  REVISIONS,
  type Revision,
  revisionFeatures,
} from './revision.ts';
export {
  fromJsonSchema,
  fromStandardSchema,
  type ImportResult,
  type StandardSchemaLike,
} from './standard.ts';
export type * from './types.ts';
export { STRING_FORMATS } from './types.ts';
export { formatHint } from './value.ts';
