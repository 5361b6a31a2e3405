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
 * Alternatives not taken: V8's linear engine (`--enable-experimental-regexp-engine`) is a
 * process-wide flag that a library cannot set and browsers do not offer; an RE2 port is a
 * native addon or a few hundred kB of WebAssembly, far beyond the browser bundle's budget.
 */

import { ElicitError } from '../errors.ts';
import {
  ELICIT_PATTERN_INPUT_TOO_LONG,
  ELICIT_PATTERN_INVALID,
  ELICIT_PATTERN_TOO_COMPLEX,
  ELICIT_PATTERN_UNSUPPORTED,
} from '../kernel/error-codes.ts';
import type { Limits } from './limits.ts';
import { buildProgram, type Program, runProgram } from './pattern-nfa.ts';
import { type PatternNode, parsePattern } from './pattern-parse.ts';

/** Thrown when a pattern that did not pass the schema check is compiled, or input is too long. */
export class PatternError extends ElicitError {}

export interface CompiledPattern {
  readonly source: string;
  /** Whether `input` contains a match; throws PatternError beyond `maxPatternInput` characters. */
  test(input: string): boolean;
}

export type PatternProblem = {
  readonly code: 'pattern_invalid' | 'pattern_unsupported' | 'pattern_too_complex';
  readonly message: string;
};

type PatternLimits = Pick<Limits, 'maxPatternStates' | 'maxPatternInput'>;

function analyse(source: string, limits: PatternLimits): PatternProblem | PatternNode {
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

/** Why `source` cannot be used as a pattern under `limits`, or undefined when it can. */
export function patternProblem(source: string, limits: PatternLimits): PatternProblem | undefined {
  const a = analyse(source, limits);
  return 'code' in a ? a : undefined;
}

const PROBLEM_CODES = {
  pattern_invalid: ELICIT_PATTERN_INVALID,
  pattern_unsupported: ELICIT_PATTERN_UNSUPPORTED,
  pattern_too_complex: ELICIT_PATTERN_TOO_COMPLEX,
} as const satisfies Record<PatternProblem['code'], string>;

/** Compiles a pattern for linear-time tests; throws PatternError when it cannot be used. */
export function compilePattern(source: string, limits: PatternLimits): CompiledPattern {
  const a = analyse(source, limits);
  if ('code' in a) {
    throw new PatternError(
      PROBLEM_CODES[a.code],
      `Pattern ${JSON.stringify(source)} ${a.message}.`,
    );
  }
  const program: Program = buildProgram(a);
  const max = limits.maxPatternInput;
  return Object.freeze({
    source,
    test(input: string): boolean {
      if (input.length > max) {
        throw new PatternError(
          ELICIT_PATTERN_INPUT_TOO_LONG,
          `Input of ${input.length} characters is longer than limits.maxPatternInput (${max}); check the length first.`,
        );
      }
      return runProgram(program, input);
    },
  });
}
