/**
 * Parser for the regular expressions of JSON Schema `pattern` (ECMA-262 syntax with the `u`
 * flag) into a small AST that `pattern-nfa.ts` runs in linear time.
 *
 * Only the regular part of the language is accepted: characters, classes, escapes, groups,
 * alternation, quantifiers and the anchors `^ $ \b \B`. Backreferences, lookaround and inline
 * modifiers have no linear-time algorithm (or none this small), so they are refused with a
 * reason instead of being handed to a backtracking engine. Syntax errors are found first by
 * the platform's RegExp constructor (which compiles but never runs anything), so this parser
 * only sees patterns the platform accepts and may assume their well-formedness.
 *
 * A character class or escape matches exactly one code point, so testing one with a native
 * RegExp cannot backtrack: `\p{…}` classes are kept as native sticky RegExps that way, which
 * brings the platform's Unicode tables without shipping any.
 */
import { ElicitError } from '../errors.ts';
import { ELICIT_PATTERN_UNSUPPORTED } from '../kernel/error-codes.ts';

/** One code point: inclusive ranges `[lo0, hi0, lo1, hi1, …]`, or a native one-char RegExp. */
export type CharSet =
  | { readonly ranges: readonly number[]; readonly native?: undefined }
  | { readonly ranges?: undefined; readonly native: RegExp };

export type Assertion = 'start' | 'end' | 'word' | 'nonword';

export type PatternNode =
  | { readonly t: 'char'; readonly set: CharSet }
  | { readonly t: 'seq'; readonly items: readonly PatternNode[] }
  | { readonly t: 'alt'; readonly items: readonly PatternNode[] }
  | { readonly t: 'rep'; readonly node: PatternNode; readonly min: number; readonly max: number }
  | { readonly t: 'assert'; readonly kind: Assertion };

export type ParseOutcome =
  | { readonly ok: true; readonly node: PatternNode; readonly states: number }
  | {
      readonly ok: false;
      readonly code: 'pattern_invalid' | 'pattern_unsupported';
      readonly reason: string;
    };

const MAX_CP = 0x10ffff;
const DIGIT = [0x30, 0x39];
const WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
const SPACE = [
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f,
  0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
];
const LINE_TERMINATORS = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];

/** Sorted, merged ranges. */
function normalise(ranges: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2)
    pairs.push([ranges[i] as number, ranges[i + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] as number) + 1) out[last] = Math.max(out[last] as number, hi);
    else out.push(lo, hi);
  }
  return out;
}

function complement(ranges: readonly number[]): number[] {
  const sorted = normalise(ranges);
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < sorted.length; i += 2) {
    const lo = sorted[i] as number;
    if (lo > next) out.push(next, lo - 1);
    next = (sorted[i + 1] as number) + 1;
  }
  if (next <= MAX_CP) out.push(next, MAX_CP);
  return out;
}

const seqOf = (items: PatternNode[]): PatternNode =>
  items.length === 1 ? (items[0] as PatternNode) : { t: 'seq', items };

/** States a node needs in the NFA (Infinity when a count makes it too large to build). */
function sizeOf(node: PatternNode): number {
  switch (node.t) {
    case 'char':
    case 'assert':
      return 1;
    case 'seq':
      return node.items.reduce((n, item) => n + sizeOf(item), 0);
    case 'alt':
      return node.items.reduce((n, item) => n + sizeOf(item), node.items.length - 1);
    case 'rep': {
      const body = sizeOf(node.node);
      const copies = node.max === Infinity ? node.min + 1 : node.max;
      const splits = node.max === Infinity ? 1 : node.max - node.min;
      return body * copies + splits;
    }
  }
}

/** A construct the linear-time matcher cannot run; caught below and reported as a problem. */
class Unsupported extends ElicitError {
  constructor(what: string) {
    super(ELICIT_PATTERN_UNSUPPORTED, what);
  }
}

class Parser {
  private i = 0;
  private readonly src: string;
  constructor(src: string) {
    this.src = src;
  }

  private unsupported(what: string): never {
    throw new Unsupported(`${what} (at character ${this.i + 1})`);
  }

  private peek(): number {
    return this.i < this.src.length ? (this.src.codePointAt(this.i) as number) : -1;
  }

  private next(): number {
    const cp = this.peek();
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  private eat(ch: string): boolean {
    if (this.src.startsWith(ch, this.i)) {
      this.i += ch.length;
      return true;
    }
    return false;
  }

  parse(): PatternNode {
    const node = this.alternation();
    if (this.i < this.src.length) this.unsupported(`unexpected "${this.src[this.i]}"`);
    return node;
  }

  private alternation(): PatternNode {
    const items = [this.sequence()];
    while (this.eat('|')) items.push(this.sequence());
    return items.length === 1 ? (items[0] as PatternNode) : { t: 'alt', items };
  }

  private sequence(): PatternNode {
    const items: PatternNode[] = [];
    while (this.i < this.src.length && this.peek() !== 0x7c && this.peek() !== 0x29) {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return seqOf(items);
  }

  private quantified(atom: PatternNode): PatternNode {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === 0x2a) [min, max] = [0, Infinity];
    else if (c === 0x2b) [min, max] = [1, Infinity];
    else if (c === 0x3f) [min, max] = [0, 1];
    else if (c === 0x7b) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i, this.i + 40));
      if (m === null) this.unsupported('a malformed {count}');
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    this.eat('?'); // lazy or greedy: the same set of matching strings
    if (!Number.isSafeInteger(min) || (max !== Infinity && !Number.isSafeInteger(max)))
      this.unsupported('a count that large');
    return { t: 'rep', node: atom, min, max };
  }

  private atom(): PatternNode {
    const start = this.i;
    const c = this.next();
    switch (c) {
      case 0x5e: // ^
        return { t: 'assert', kind: 'start' };
      case 0x24: // $
        return { t: 'assert', kind: 'end' };
      case 0x2e: // .
        return { t: 'char', set: { ranges: complement(LINE_TERMINATORS) } };
      case 0x28: // (
        return this.group();
      case 0x5b: // [
        return this.charClass(start);
      case 0x5c: // \
        return this.escape(start);
      default:
        return { t: 'char', set: { ranges: [c, c] } };
    }
  }

  private group(): PatternNode {
    if (this.eat('?')) {
      if (this.eat(':')) {
        // non-capturing: nothing to do
      } else if (this.src.startsWith('=', this.i) || this.src.startsWith('!', this.i)) {
        this.unsupported('lookahead (?= or (?!');
      } else if (this.src.startsWith('<=', this.i) || this.src.startsWith('<!', this.i)) {
        this.unsupported('lookbehind (?<= or (?<!');
      } else if (this.eat('<')) {
        const end = this.src.indexOf('>', this.i);
        if (end < 0) this.unsupported('an unterminated group name');
        this.i = end + 1;
      } else this.unsupported('an inline modifier group (?…)');
    }
    const inner = this.alternation();
    if (!this.eat(')')) this.unsupported('an unclosed group');
    return inner;
  }

  /** `\d`, `\w`, `\s` and their negations, or undefined. */
  private classEscape(c: number): number[] | undefined {
    switch (c) {
      case 0x64:
        return DIGIT;
      case 0x44:
        return complement(DIGIT);
      case 0x77:
        return WORD;
      case 0x57:
        return complement(WORD);
      case 0x73:
        return SPACE;
      case 0x53:
        return complement(SPACE);
      default:
        return undefined;
    }
  }

  /** The code point of a character escape (after the backslash), in or outside a class. */
  private characterEscape(c: number, inClass: boolean): number {
    switch (c) {
      case 0x74:
        return 0x09;
      case 0x6e:
        return 0x0a;
      case 0x76:
        return 0x0b;
      case 0x66:
        return 0x0c;
      case 0x72:
        return 0x0d;
      case 0x30:
        if (/[0-9]/.test(this.src[this.i] ?? '')) this.unsupported('an octal escape');
        return 0;
      case 0x63: {
        const letter = this.next();
        return letter % 32;
      }
      case 0x78: {
        const hex = this.src.slice(this.i, this.i + 2);
        this.i += 2;
        return Number.parseInt(hex, 16);
      }
      case 0x75: {
        if (this.eat('{')) {
          const end = this.src.indexOf('}', this.i);
          const cp = Number.parseInt(this.src.slice(this.i, end), 16);
          this.i = end + 1;
          return cp;
        }
        const hi = Number.parseInt(this.src.slice(this.i, this.i + 4), 16);
        this.i += 4;
        // A surrogate pair written as two \u escapes is one code point in u mode.
        if (
          hi >= 0xd800 &&
          hi <= 0xdbff &&
          /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(this.src.slice(this.i, this.i + 6))
        ) {
          const lo = Number.parseInt(this.src.slice(this.i + 2, this.i + 6), 16);
          this.i += 6;
          return (hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
        }
        return hi;
      }
      case 0x62:
        if (inClass) return 0x08;
        break;
      case 0x2d:
        if (inClass) return 0x2d;
        break;
    }
    if (c >= 0x31 && c <= 0x39) this.unsupported('a backreference');
    if (c === 0x6b) this.unsupported('a named backreference \\k<…>');
    // Identity escape of a syntax character (the only ones u mode allows).
    return c;
  }

  private escape(start: number): PatternNode {
    const c = this.next();
    if (c === 0x62) return { t: 'assert', kind: 'word' };
    if (c === 0x42) return { t: 'assert', kind: 'nonword' };
    const set = this.classEscape(c);
    if (set !== undefined) return { t: 'char', set: { ranges: set } };
    if (c === 0x70 || c === 0x50) {
      this.i = this.src.indexOf('}', this.i) + 1;
      return { t: 'char', set: { native: new RegExp(this.src.slice(start, this.i), 'uy') } };
    }
    const cp = this.characterEscape(c, false);
    return { t: 'char', set: { ranges: [cp, cp] } };
  }

  private charClass(start: number): PatternNode {
    const negate = this.eat('^');
    const ranges: number[] = [];
    let native = false;
    // One class atom: a code point, or a set (\d, \p{…}) that cannot end a range.
    const classAtom = (): number | number[] | undefined => {
      const c = this.next();
      if (c !== 0x5c) return c;
      const e = this.next();
      const set = this.classEscape(e);
      if (set !== undefined) return set;
      if (e === 0x70 || e === 0x50) {
        this.i = this.src.indexOf('}', this.i) + 1;
        native = true;
        return undefined;
      }
      return this.characterEscape(e, true);
    };
    while (this.peek() !== 0x5d) {
      if (this.i >= this.src.length) this.unsupported('an unclosed character class');
      const lo = classAtom();
      if (this.peek() === 0x2d && this.src[this.i + 1] !== ']' && typeof lo === 'number') {
        this.i++;
        const hi = classAtom();
        if (typeof hi !== 'number') this.unsupported('a range bounded by a class');
        ranges.push(lo, hi);
      } else if (typeof lo === 'number') ranges.push(lo, lo);
      else if (lo !== undefined) ranges.push(...lo);
    }
    this.i++;
    if (native) {
      return { t: 'char', set: { native: new RegExp(this.src.slice(start, this.i), 'uy') } };
    }
    return { t: 'char', set: { ranges: negate ? complement(ranges) : normalise(ranges) } };
  }
}

/** Parses `source` as a `u`-flag pattern; never throws. */
export function parsePattern(source: string): ParseOutcome {
  try {
    new RegExp(source, 'u');
  } catch (cause) {
    return { ok: false, code: 'pattern_invalid', reason: (cause as Error).message };
  }
  try {
    const node = new Parser(source).parse();
    return { ok: true, node, states: sizeOf(node) + 1 };
  } catch (cause) {
    if (cause instanceof Unsupported || cause instanceof SyntaxError)
      return { ok: false, code: 'pattern_unsupported', reason: cause.message };
    throw cause;
  }
}
