/**
 * What other parts of elicit may use of the schema core beyond elicit/schema: lowering a form for
 * an older peer, the bounded measure that runs before any parse, and the sensitive-field reading.
 * Pure like the rest of the part. Not a package export.
 */
export { lower } from './convert.ts';
export { measureJson } from './measure.ts';
export { sensitiveKind } from './sensitive.ts';
