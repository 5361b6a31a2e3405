/**
 * Whether a pattern can make a backtracking engine take exponential time.
 *
 * elicit never runs patterns on a backtracking engine, but a Standard Schema library (zod…)
 * runs its own `.regex()` checks natively on the answer it is given. Before such a schema is
 * accepted, its patterns are checked here for exponential ambiguity: a state q of the NFA with
 * two different paths from q back to q reading the same word. That is the exact condition
 * under which backtracking blows up exponentially (`(a+)+`, `(a|a)*`, `([A-Za-z]+ ?)+`), and
 * it is decided in polynomial time on the product of the NFA with itself.
 *
 * Two paths are different when they pass through different states, or through the same states
 * by different ε-paths (`(a*)*` reaches the same `a` by two routes).
 */
import { buildProgram } from './pattern-nfa.ts';
import type { CharSet, PatternNode } from './pattern-parse.ts';

const CHAR = 0;
const MATCH = 3;

function overlap(x: CharSet, y: CharSet): boolean {
  if (x.ranges === undefined || y.ranges === undefined) return true; // \p{…}: assume they do
  const a = x.ranges;
  const b = y.ranges;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if ((a[i + 1] as number) < (b[j] as number)) i += 2;
    else if ((b[j + 1] as number) < (a[i] as number)) j += 2;
    else return true;
  }
  return false;
}

/**
 * True when the pattern is exponentially ambiguous, false when it is not, undefined when it has
 * more than `maxCharStates` character states (too large to decide within the budget).
 */
export function exponentiallyAmbiguous(
  node: PatternNode,
  maxCharStates: number,
): boolean | undefined {
  const p = buildProgram(node);
  const n = p.kind.length;
  const chars: number[] = [];
  const index = new Int32Array(n).fill(-1);
  for (let s = 0; s < n; s++) {
    if (p.kind[s] === CHAR) {
      index[s] = chars.length;
      chars.push(s);
    }
  }
  const c = chars.length;
  if (c > maxCharStates) return undefined;

  // succ[i]: character states reachable from char state i after it reads; mult 2 = ≥ 2 ε-paths.
  const succ: { to: number; mult: number }[][] = [];
  const paths = new Uint8Array(n);
  const indeg = new Int32Array(n);
  const seen = new Uint8Array(n);
  for (const s of chars) {
    const from = p.out1[s] as number;
    // ε-subgraph reachable from `from` (CHAR and MATCH are sinks).
    const reach: number[] = [];
    seen.fill(0);
    indeg.fill(0);
    paths.fill(0);
    const stack = [from];
    seen[from] = 1;
    while (stack.length > 0) {
      const x = stack.pop() as number;
      reach.push(x);
      const k = p.kind[x];
      if (k === CHAR || k === MATCH) continue;
      const outs = k === 1 ? [p.out1[x] as number, p.out2[x] as number] : [p.out1[x] as number];
      for (const y of outs) {
        indeg[y] = (indeg[y] as number) + 1;
        if (!seen[y]) {
          seen[y] = 1;
          stack.push(y);
        }
      }
    }
    // Count ε-paths in topological order, capped at 2; what an ε-cycle reaches stays unprocessed.
    const done = new Uint8Array(n);
    paths[from] = 1;
    const queue = indeg[from] === 0 ? [from] : [];
    while (queue.length > 0) {
      const x = queue.pop() as number;
      done[x] = 1;
      const k = p.kind[x];
      if (k === CHAR || k === MATCH) continue;
      const outs = k === 1 ? [p.out1[x] as number, p.out2[x] as number] : [p.out1[x] as number];
      for (const y of outs) {
        paths[y] = Math.min(2, (paths[y] as number) + (paths[x] as number));
        indeg[y] = (indeg[y] as number) - 1;
        if (indeg[y] === 0) queue.push(y);
      }
    }
    const list: { to: number; mult: number }[] = [];
    for (const x of reach) {
      if (p.kind[x] === CHAR)
        list.push({ to: index[x] as number, mult: done[x] ? (paths[x] as number) : 2 });
    }
    succ.push(list);
  }

  // Pair graph from every diagonal (q, q); ids a * c + b. Edges that diverge are marked.
  const sets = chars.map((s) => p.sets[p.out2[s] as number] as CharSet);
  const id = new Map<number, number>();
  const nodes: number[] = [];
  const edges: number[][] = [];
  const diverging: boolean[][] = [];
  const visit = (pair: number): number => {
    let v = id.get(pair);
    if (v === undefined) {
      v = nodes.length;
      id.set(pair, v);
      nodes.push(pair);
      edges.push([]);
      diverging.push([]);
    }
    return v;
  };
  for (let q = 0; q < c; q++) visit(q * c + q);
  for (let v = 0; v < nodes.length; v++) {
    const pair = nodes[v] as number;
    const a = Math.floor(pair / c);
    const b = pair % c;
    for (const x of succ[a] as { to: number; mult: number }[]) {
      for (const y of succ[b] as { to: number; mult: number }[]) {
        if (!overlap(sets[x.to] as CharSet, sets[y.to] as CharSet)) continue;
        const w = visit(x.to * c + y.to);
        (edges[v] as number[]).push(w);
        (diverging[v] as boolean[]).push(a === b && x.to === y.to && x.mult > 1);
      }
    }
  }

  // Tarjan's SCCs, iteratively.
  const m = nodes.length;
  const order = new Int32Array(m).fill(-1);
  const low = new Int32Array(m);
  const comp = new Int32Array(m).fill(-1);
  const onStack = new Uint8Array(m);
  const sccStack: number[] = [];
  let counter = 0;
  let comps = 0;
  for (let root = 0; root < m; root++) {
    if (order[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    order[root] = low[root] = counter++;
    sccStack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const top = work[work.length - 1] as [number, number];
      const [v, i] = top;
      const out = edges[v] as number[];
      if (i < out.length) {
        top[1]++;
        const w = out[i] as number;
        if (order[w] === -1) {
          order[w] = low[w] = counter++;
          sccStack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v] as number, order[w] as number);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined)
        low[parent[0]] = Math.min(low[parent[0]] as number, low[v] as number);
      if (low[v] === order[v]) {
        for (;;) {
          const w = sccStack.pop() as number;
          onStack[w] = 0;
          comp[w] = comps;
          if (w === v) break;
        }
        comps++;
      }
    }
  }

  // A component holding a diagonal node and either an off-diagonal node or a diverging edge
  // inside it has two different cycles on the same word through that diagonal state.
  const hasDiagonal = new Uint8Array(comps);
  const hasOther = new Uint8Array(comps);
  for (let v = 0; v < m; v++) {
    const pair = nodes[v] as number;
    if (Math.floor(pair / c) === pair % c) hasDiagonal[comp[v] as number] = 1;
    else hasOther[comp[v] as number] = 1;
    const out = edges[v] as number[];
    for (let i = 0; i < out.length; i++) {
      if ((diverging[v] as boolean[])[i] && comp[out[i] as number] === comp[v])
        hasOther[comp[v] as number] = 1;
    }
  }
  for (let k = 0; k < comps; k++) if (hasDiagonal[k] && hasOther[k]) return true;
  return false;
}
