/**
 * `pattern` of a text field, run in time linear in the input.
 *
 * A pattern usually comes from the peer (a client checks a server's schema and the person's
 * answer against it), and even an author's own pattern is applied to a peer's value. A
 * backtracking engine (every platform's RegExp) takes exponential time on patterns such as
 * `^(a+)+$` or `^([A-Za-z]+ ?)+$` with a few dozen characters of input, and blocks the event
 * loop meanwhile. So patterns never run on the platform's RegExp here: they are parsed
 * (`pattern-parse.ts`) and simulated as an NFA (`pattern-nfa.ts`), and what that cannot run
 * (backreferences, lookaround) is refused when the schema is checked.
 *
 * Linear is not enough: `[…1 000 code points…]{2000}` is linear and still billions of steps on
 * a 4 096-character answer. So each pattern's cost is computed when it is compiled: the steps
 * one input position can take (`Program.weight`: states, splits twice, plus each distinct
 * class's test) times the positions it can be tested on (the field's maxLength or
 * limits.maxPatternInput, plus one). A pattern over limits.maxPatternWork is refused
 * (`pattern_too_costly`), and `checkSchema` refuses a form whose patterns together are
 * (`form_too_costly`): whatever a peer sends, validating a form is bounded in steps, and
 * bench/validation.bench.ts measures the worst form the limits admit.
 *
 * Alternatives not taken: V8's linear engine (`--enable-experimental-regexp-engine`) is a
 * process-wide flag that a library cannot set and browsers do not offer; a native RE2 is an
 * addon or WebAssembly far beyond the browser bundle's budget. re2js, RE2 ported to
 * JavaScript, was measured beside this matcher (docs/performance.md): its lazy DFA is much
 * faster on many patterns, but it is 45 kB gzipped (the whole browser budget is 25 kB), reads
 * RE2 syntax rather than ECMAScript's (`\u…`, `\c`, `[^]` and counts over 1 000 are refused,
 * `\s` is ASCII only), and has no cost known ahead of a test: a class of 1 000 code points
 * repeated {1000} took it 250 ms cold.
 */

import { ElicitError } from '../errors.ts';
import {
  ELICIT_PATTERN_INPUT_TOO_LONG,
  ELICIT_PATTERN_INVALID,
  ELICIT_PATTERN_TOO_COMPLEX,
  ELICIT_PATTERN_TOO_COSTLY,
  ELICIT_PATTERN_UNSUPPORTED,
} from '../kernel/error-codes.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { buildProgram, type Program, runProgram } from './pattern-nfa.ts';
import { type PatternNode, parsePattern } from './pattern-parse.ts';

/** Thrown when a pattern that did not pass the schema check is compiled, or input is too long. */
export class PatternError extends ElicitError {}

export interface CompiledPattern {
  readonly source: string;
  /** Matcher steps one test can take at most (see `patternSteps`). */
  readonly steps: number;
  /** Whether `input` contains a match; throws PatternError beyond `maxPatternInput` characters. */
  test(input: string): boolean;
}

export type PatternProblem = {
  readonly code:
    | 'pattern_invalid'
    | 'pattern_unsupported'
    | 'pattern_too_complex'
    | 'pattern_too_costly';
  readonly message: string;
};

/** The limits a pattern is compiled under; maxPatternWork defaults to DEFAULT_LIMITS'. */
type PatternLimits = Pick<Limits, 'maxPatternStates' | 'maxPatternInput'> &
  Partial<Pick<Limits, 'maxPatternWork'>>;

/**
 * Steps counted for compiling a pattern, per state and per character of its source. Parsing and
 * building cost about 20 matcher steps each (measured), and a form's pattern is compiled up to
 * three times (checked, its default tested, its validator built): counting them keeps the
 * checker itself within the budget, whatever the form's lengths.
 */
export const COMPILE_STEPS = 64;

/**
 * Matcher steps one test of a program can take on inputs of at most `maxLength` code points
 * (undefined: limits.maxPatternInput): its weight times the positions, one more than the length.
 */
export function patternSteps(
  weight: number,
  maxLength: number | undefined,
  limits: Pick<Limits, 'maxPatternInput'>,
): number {
  return weight * (Math.min(maxLength ?? Infinity, limits.maxPatternInput) + 1);
}

/** Formats a step count for a message: 8 200 000 → "8.2 million", 16 836 → "16.8 thousand". */
export function formatSteps(steps: number): string {
  if (steps >= 1e6) return `${Number((steps / 1e6).toPrecision(3))} million`;
  if (steps >= 1e4) return `${Number((steps / 1e3).toPrecision(3))} thousand`;
  return String(steps);
}

function parseChecked(source: string, limits: PatternLimits): PatternProblem | PatternNode {
  const parsed = parsePattern(source);
  if (!parsed.ok) {
    return {
      code: parsed.code,
      message:
        parsed.code === 'pattern_invalid'
          ? `is not a valid regular expression (${parsed.reason})`
          : `uses ${parsed.reason}, which the linear-time matcher cannot run; rewrite it without backreferences, lookaround or inline modifiers`,
    };
  }
  if (parsed.states > limits.maxPatternStates) {
    return {
      code: 'pattern_too_complex',
      message: `needs ${parsed.states > 1e9 ? 'over a billion' : parsed.states} matcher states, more than limits.maxPatternStates (${limits.maxPatternStates}); use smaller {counts}`,
    };
  }
  return parsed.node;
}

/** A pattern's program and the steps one test can take, or why it cannot be used. */
function analyse(
  source: string,
  limits: PatternLimits,
  maxLength: number | undefined,
): PatternProblem | { readonly program: Program; readonly steps: number } {
  const node = parseChecked(source, limits);
  if ('code' in node) return node;
  const program = buildProgram(node);
  const steps =
    patternSteps(program.weight, maxLength, limits) +
    COMPILE_STEPS * (program.kind.length + source.length);
  const budget = limits.maxPatternWork ?? DEFAULT_LIMITS.maxPatternWork;
  if (steps > budget) {
    const length = Math.min(maxLength ?? Infinity, limits.maxPatternInput);
    return {
      code: 'pattern_too_costly',
      message: `can take ${formatSteps(steps)} matcher steps on ${length} characters (${program.weight} per character, and compiling it), more than limits.maxPatternWork (${formatSteps(budget)}); give the field a smaller maxLength or use smaller {counts}`,
    };
  }
  return { program, steps };
}

/**
 * Why `source` cannot be used as a pattern under `limits` for answers of at most `maxLength`
 * code points (default limits.maxPatternInput), or undefined when it can.
 */
export function patternProblem(
  source: string,
  limits: PatternLimits,
  maxLength?: number,
): PatternProblem | undefined {
  const a = analyse(source, limits, maxLength);
  return 'code' in a ? a : undefined;
}

/**
 * The steps one test of `source` can take on answers of at most `maxLength` code points, or
 * the problem that keeps it from being used.
 */
export function patternCost(
  source: string,
  limits: PatternLimits,
  maxLength?: number,
): PatternProblem | { readonly steps: number } {
  const a = analyse(source, limits, maxLength);
  return 'code' in a ? a : { steps: a.steps };
}

const PROBLEM_CODES = {
  pattern_invalid: ELICIT_PATTERN_INVALID,
  pattern_unsupported: ELICIT_PATTERN_UNSUPPORTED,
  pattern_too_complex: ELICIT_PATTERN_TOO_COMPLEX,
  pattern_too_costly: ELICIT_PATTERN_TOO_COSTLY,
} as const satisfies Record<PatternProblem['code'], string>;

/**
 * Compiles a pattern for bounded tests on answers of at most `maxLength` code points (default
 * limits.maxPatternInput); throws PatternError when it cannot be used, or costs more than
 * limits.maxPatternWork steps per test.
 */
export function compilePattern(
  source: string,
  limits: PatternLimits,
  maxLength?: number,
): CompiledPattern {
  const a = analyse(source, limits, maxLength);
  if ('code' in a) {
    throw new PatternError(
      PROBLEM_CODES[a.code],
      `Pattern ${JSON.stringify(source)} ${a.message}.`,
    );
  }
  const { program, steps } = a;
  const max = limits.maxPatternInput;
  return Object.freeze({
    source,
    steps,
    test(input: string): boolean {
      if (input.length > max) {
        throw new PatternError(
          ELICIT_PATTERN_INPUT_TOO_LONG,
          `Input of ${input.length} characters is longer than limits.maxPatternInput (${max}); check the length first.`,
        );
      }
      // Past maxLength UTF-16 units the code points are counted: the cost holds for those.
      if (maxLength !== undefined && input.length > maxLength) {
        const points = codePoints(input);
        if (points > maxLength) {
          throw new PatternError(
            ELICIT_PATTERN_INPUT_TOO_LONG,
            `Input of ${points} characters is longer than the ${maxLength} this pattern was compiled for; check the length first.`,
          );
        }
      }
      return runProgram(program, input);
    },
  });
}

function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) n++;
    else {
      const d = text.charCodeAt(i + 1);
      n++;
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}
