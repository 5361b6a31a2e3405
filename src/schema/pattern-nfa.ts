/**
 * Thompson NFA for a parsed pattern, simulated as a set of states (the "Pike VM" without
 * captures: a form only asks whether a value matches). Every input code point is looked at
 * once per live state and each state is entered at most once per position, so a test costs
 * O(input length × states) whatever the pattern: no backtracking, no blow-up.
 *
 * JSON Schema patterns are not anchored: the start state is added again at every position,
 * which searches for a match anywhere in one pass.
 */
import type { Assertion, CharSet, PatternNode } from './pattern-parse.ts';

const CHAR = 0;
const SPLIT = 1;
const ASSERT = 2;
const MATCH = 3;
const ASSERTIONS: readonly Assertion[] = ['start', 'end', 'word', 'nonword'];

export interface Program {
  readonly start: number;
  readonly kind: Uint8Array;
  /** CHAR, ASSERT: the next state; SPLIT: the first branch. */
  readonly out1: Int32Array;
  /** SPLIT: the second branch; CHAR: index into `sets`; ASSERT: index into ASSERTIONS. */
  readonly out2: Int32Array;
  /** CHAR with a single range: its bounds (lo > hi when the set is not a single range). */
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  readonly sets: readonly CharSet[];
  /** Scratch lists reused by every run (runs never interleave: nothing here awaits). */
  readonly scratch: {
    cur: Int32Array;
    next: Int32Array;
    stack: Int32Array;
    mark: Int32Array;
    gen: number;
  };
}

export function buildProgram(root: PatternNode): Program {
  const kind: number[] = [];
  const out1: number[] = [];
  const out2: number[] = [];
  const sets: CharSet[] = [];
  const add = (k: number, a: number, b: number): number => {
    kind.push(k);
    out1.push(a);
    out2.push(b);
    return kind.length - 1;
  };
  // Compiled back to front: each node gets the state that follows it.
  const compile = (node: PatternNode, next: number): number => {
    switch (node.t) {
      case 'char':
        sets.push(node.set);
        return add(CHAR, next, sets.length - 1);
      case 'assert':
        return add(ASSERT, next, ASSERTIONS.indexOf(node.kind));
      case 'seq':
        for (let i = node.items.length - 1; i >= 0; i--)
          next = compile(node.items[i] as PatternNode, next);
        return next;
      case 'alt': {
        const starts = node.items.map((item) => compile(item, next));
        let s = starts[starts.length - 1] as number;
        for (let i = starts.length - 2; i >= 0; i--) s = add(SPLIT, starts[i] as number, s);
        return s;
      }
      case 'rep': {
        let cur = next;
        if (node.max === Infinity) {
          const loop = add(SPLIT, -1, next);
          out1[loop] = compile(node.node, loop);
          cur = loop;
        } else {
          for (let k = node.min; k < node.max; k++) cur = add(SPLIT, compile(node.node, cur), next);
        }
        for (let k = 0; k < node.min; k++) cur = compile(node.node, cur);
        return cur;
      }
    }
  };
  const start = compile(root, add(MATCH, -1, -1));
  const n = kind.length;
  const lo = new Int32Array(n);
  const hi = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    const set = kind[s] === CHAR ? sets[out2[s] as number] : undefined;
    const r = set?.ranges;
    if (r !== undefined && r.length === 2) {
      lo[s] = r[0] as number;
      hi[s] = r[1] as number;
    } else {
      lo[s] = 1;
      hi[s] = 0;
    }
  }
  return {
    start,
    kind: Uint8Array.from(kind),
    out1: Int32Array.from(out1),
    out2: Int32Array.from(out2),
    lo,
    hi,
    sets,
    scratch: {
      cur: new Int32Array(n),
      next: new Int32Array(n),
      stack: new Int32Array(2 * n + 2),
      mark: new Int32Array(n),
      gen: 0,
    },
  };
}

const isWordUnit = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;

function inSet(set: CharSet, cp: number, input: string, pos: number): boolean {
  if (set.native !== undefined) {
    set.native.lastIndex = pos;
    return set.native.test(input);
  }
  const r = set.ranges;
  for (let i = 0; i < r.length; i += 2) {
    if (cp < (r[i] as number)) return false;
    if (cp <= (r[i + 1] as number)) return true;
  }
  return false;
}

/** Whether `input` contains a match of the program (JSON Schema `pattern` semantics). */
export function runProgram(p: Program, input: string): boolean {
  const { kind, out1, out2, lo, hi, sets, scratch } = p;
  const len = input.length;
  const { stack, mark } = scratch;
  let cur = scratch.cur;
  let next = scratch.next;
  if (scratch.gen > 0x3fffffff) {
    mark.fill(0);
    scratch.gen = 0;
  }
  let gen = ++scratch.gen;
  let count = 0;
  let nextCount = 0;

  const holds = (a: number, pos: number): boolean => {
    if (a === 0) return pos === 0;
    if (a === 1) return pos === len;
    const before = pos > 0 && isWordUnit(input.charCodeAt(pos - 1));
    const after = pos < len && isWordUnit(input.charCodeAt(pos));
    return (before !== after) === (a === 2);
  };
  // Adds the ε-closure of `from` at `pos` to `list`; true when it reaches MATCH.
  const close = (from: number, pos: number, list: Int32Array, n: number): number => {
    let top = 0;
    stack[top++] = from;
    while (top > 0) {
      const s = stack[--top] as number;
      if (mark[s] === gen) continue;
      mark[s] = gen;
      const k = kind[s];
      if (k === CHAR) list[n++] = s;
      else if (k === SPLIT) {
        stack[top++] = out2[s] as number;
        stack[top++] = out1[s] as number;
      } else if (k === ASSERT) {
        if (holds(out2[s] as number, pos)) stack[top++] = out1[s] as number;
      } else return -1;
    }
    return n;
  };

  let pos = 0;
  for (;;) {
    count = close(p.start, pos, cur, count);
    if (count < 0) break;
    if (pos >= len) {
      scratch.gen = gen;
      return false;
    }
    const cp = input.codePointAt(pos) as number;
    const end = pos + (cp > 0xffff ? 2 : 1);
    gen++;
    nextCount = 0;
    for (let i = 0; i < count; i++) {
      const s = cur[i] as number;
      const l = lo[s] as number;
      const h = hi[s] as number;
      if (l <= h ? cp >= l && cp <= h : inSet(sets[out2[s] as number] as CharSet, cp, input, pos)) {
        nextCount = close(out1[s] as number, end, next, nextCount);
        if (nextCount < 0) break;
      }
    }
    if (nextCount < 0) break;
    const t = cur;
    cur = next;
    next = t;
    count = nextCount;
    pos = end;
  }
  scratch.gen = gen;
  return true;
}
