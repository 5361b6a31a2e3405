/**
 * Every cap the schema core enforces. Defaults are generous for real forms and small enough
 * that a hostile peer cannot make a check or a validation slow or memory-hungry.
 */
import { ElicitError } from '../errors.ts';
import { ELICIT_LIMIT_INVALID } from '../kernel/error-codes.ts';

export interface Limits {
  /** Properties in one requested schema. */
  readonly maxProperties: number;
  /** Options in one enum / oneOf / anyOf list. */
  readonly maxOptions: number;
  /** Characters in a property name. */
  readonly maxKeyLength: number;
  /** Characters in a title, description, enum value, enum title or string default. */
  readonly maxTextLength: number;
  /** Characters in a `pattern`. */
  readonly maxPatternLength: number;
  /** Size of the whole schema or answer, in characters of its JSON text. */
  readonly maxSize: number;
  /** Nesting depth of any JSON value looked at (the restricted schema itself needs 5). */
  readonly maxDepth: number;
  /** Characters in one string answer. */
  readonly maxAnswerLength: number;
  /**
   * States of the matcher one `pattern` compiles to (about one per character, class or
   * quantifier, times each {count}). A test costs at most input length × states steps.
   */
  readonly maxPatternStates: number;
  /** Characters of an answer tested against a `pattern`; a longer answer is refused untested. */
  readonly maxPatternInput: number;
  /**
   * Matcher steps that checking one answer against every `pattern` of a form may take, computed
   * when the form is checked: per field, the steps one input position can cost (one per state,
   * two per split, plus each distinct class's test) times the longest answer it admits (its
   * maxLength, else maxPatternInput) plus one, and 64 per state and source character for
   * compiling it (COMPILE_STEPS). A field or a form over it is refused
   * (`pattern_too_costly`, `form_too_costly`). The default keeps one validation of the costliest
   * form the limits admit near 10 ms (bench/validation.bench.ts).
   */
  readonly maxPatternWork: number;
  /**
   * Character states of a Standard Schema library's own pattern that the import analyses for
   * exponential backtracking (the analysis costs about the square of this).
   */
  readonly maxLibraryPatternStates: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxProperties: 100,
  maxOptions: 1000,
  maxKeyLength: 256,
  maxTextLength: 4096,
  maxPatternLength: 1024,
  maxSize: 262_144,
  maxDepth: 8,
  maxAnswerLength: 65_536,
  maxPatternStates: 2048,
  maxPatternInput: 4096,
  maxPatternWork: 1_000_000,
  maxLibraryPatternStates: 512,
});

export function resolveLimits(overrides: Partial<Limits> | undefined): Limits {
  if (overrides === undefined) return DEFAULT_LIMITS;
  const merged = { ...DEFAULT_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new LimitOptionError(`limits.${name}`, value);
    }
  }
  return Object.freeze(merged);
}

/** A limit option that is not a positive whole number (a configuration mistake). */
export class LimitOptionError extends ElicitError {
  constructor(name: string, value: unknown) {
    super(
      ELICIT_LIMIT_INVALID,
      `${name} must be a positive whole number, got ${String(value)}; leave it out for the default.`,
    );
  }
}
