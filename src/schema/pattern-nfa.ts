/**
 * Thompson NFA for a parsed pattern, simulated as a set of states (the "Pike VM" without
 * captures: a form only asks whether a value matches). Every input code point is looked at
 * once per live state and each state is entered at most once per position, so a test costs
 * O(input length × states) whatever the pattern: no backtracking, no blow-up.
 *
 * A class is tested once per position whatever number of states share it (`[…]{2000}` is one
 * test, not 2 000), in O(1) for ASCII (a bitmap) and O(log ranges) otherwise (binary search), so
 * `weight` below, the steps one position can cost, bounds a test at weight × (code points + 1).
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

/**
 * Steps a `\p{…}` class costs per test, as a multiple of one state step: it is tested by the
 * platform's RegExp (one sticky call, about 15 times a state step where measured).
 */
export const NATIVE_CLASS_STEPS = 16;

/** Steps a split state costs, as a multiple of a character state (measured, bench/). */
export const SPLIT_STEPS = 2;

/** A class shared by the states that test it: ranges with an ASCII bitmap, or native. */
interface ClassTest {
  readonly ranges: Int32Array | undefined;
  /** Bit c of the 128-bit map: whether ASCII code point c is in the class. */
  readonly ascii: Uint32Array;
  readonly native: RegExp | undefined;
}

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
  /** Distinct classes (equal ones shared); `tests[i]` is `sets[i]` prepared for testing. */
  readonly sets: readonly CharSet[];
  readonly tests: readonly ClassTest[];
  /**
   * Steps one input position can cost at most: one per state, plus each distinct class's test
   * (log2 of its ranges, or NATIVE_CLASS_STEPS). A test costs at most weight × (length + 1).
   */
  readonly weight: number;
  /** Scratch lists reused by every run (runs never interleave: nothing here awaits). */
  readonly scratch: {
    cur: Int32Array;
    next: Int32Array;
    stack: Int32Array;
    mark: Int32Array;
    /** Per class: the position generation it was last tested at, and the answer. */
    tested: Int32Array;
    holds: Uint8Array;
    gen: number;
  };
}

const keyOf = (set: CharSet): string =>
  set.native !== undefined ? `p${set.native.source}` : set.ranges.join(',');

function prepare(set: CharSet): ClassTest {
  const ascii = new Uint32Array(4);
  if (set.native !== undefined) {
    for (let c = 0; c < 128; c++) {
      set.native.lastIndex = 0;
      if (set.native.test(String.fromCharCode(c)))
        ascii[c >>> 5] = (ascii[c >>> 5] as number) | (1 << (c & 31));
    }
    return { ranges: undefined, ascii, native: set.native };
  }
  const r = set.ranges;
  for (let i = 0; i < r.length; i += 2) {
    const top = Math.min(r[i + 1] as number, 127);
    for (let c = r[i] as number; c <= top; c++)
      ascii[c >>> 5] = (ascii[c >>> 5] as number) | (1 << (c & 31));
  }
  return { ranges: Int32Array.from(r), ascii, native: undefined };
}

export function buildProgram(root: PatternNode): Program {
  const kind: number[] = [];
  const out1: number[] = [];
  const out2: number[] = [];
  const sets: CharSet[] = [];
  // A repeated node shares its set object: look that up first, the content key once per object.
  const byObject = new Map<CharSet, number>();
  const byKey = new Map<string, number>();
  const setIndex = (set: CharSet): number => {
    let i = byObject.get(set);
    if (i !== undefined) return i;
    const key = keyOf(set);
    i = byKey.get(key);
    if (i === undefined) {
      i = sets.push(set) - 1;
      byKey.set(key, i);
    }
    byObject.set(set, i);
    return i;
  };
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
        return add(CHAR, next, setIndex(node.set));
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
  const tests = sets.map(prepare);
  // A split pushes two states and is met again from other branches: twice a state's steps.
  let weight = 0;
  for (const k of kind) weight += k === SPLIT ? SPLIT_STEPS : 1;
  for (const t of tests) {
    if (t.native !== undefined) weight += NATIVE_CLASS_STEPS;
    else if (t.ranges !== undefined && t.ranges.length > 2)
      weight += Math.ceil(Math.log2(t.ranges.length / 2)) + 1;
  }
  return {
    start,
    kind: Uint8Array.from(kind),
    out1: Int32Array.from(out1),
    out2: Int32Array.from(out2),
    lo,
    hi,
    sets,
    tests,
    weight,
    scratch: {
      cur: new Int32Array(n),
      next: new Int32Array(n),
      stack: new Int32Array(2 * n + 2),
      mark: new Int32Array(n),
      tested: new Int32Array(sets.length),
      holds: new Uint8Array(sets.length),
      gen: 0,
    },
  };
}

const isWordUnit = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;

function inClass(t: ClassTest, cp: number, input: string, pos: number): boolean {
  if (cp < 128) return ((t.ascii[cp >>> 5] as number) & (1 << (cp & 31))) !== 0;
  if (t.native !== undefined) {
    t.native.lastIndex = pos;
    return t.native.test(input);
  }
  const r = t.ranges as Int32Array;
  // The last range whose low end is <= cp, by binary search over the pairs.
  let a = 0;
  let b = (r.length >> 1) - 1;
  while (a < b) {
    const m = (a + b + 1) >> 1;
    if ((r[2 * m] as number) <= cp) a = m;
    else b = m - 1;
  }
  return (r[2 * a] as number) <= cp && cp <= (r[2 * a + 1] as number);
}

/** Whether `input` contains a match of the program (JSON Schema `pattern` semantics). */
export function runProgram(p: Program, input: string): boolean {
  const { kind, out1, out2, lo, hi, tests, scratch } = p;
  const len = input.length;
  const { stack, mark, tested, holds: answer } = scratch;
  let cur = scratch.cur;
  let next = scratch.next;
  if (scratch.gen > 0x3fffffff) {
    mark.fill(0);
    tested.fill(0);
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
      let ok: boolean;
      if (l <= h) ok = cp >= l && cp <= h;
      else {
        const c = out2[s] as number;
        if (tested[c] !== gen) {
          tested[c] = gen;
          answer[c] = inClass(tests[c] as ClassTest, cp, input, pos) ? 1 : 0;
        }
        ok = answer[c] === 1;
      }
      if (ok) {
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
