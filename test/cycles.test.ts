/**
 * No import cycle between files under src/. Imports are parsed as test/layering.test.ts does
 * (static, side-effect and dynamic). Runtime cycles break loading (a binding undefined while a
 * cycle is half evaluated); type-only cycles (`import type` / `export type`, erased at compile
 * time) cannot, but they are forbidden too: two files that need each other's declarations are
 * one concept in two places, and a reader cannot take either in alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const STATIC =
  /^[ \t]*(?:import|export)[ \t]+(type[ \t]+)?(?:[^;'"]*?[ \t\n]from[ \t]*)?['"]([^'"\n]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

/** The files (relative to `root`) one file imports: at runtime only, or with type-only imports too. */
function importsOf(file: string, source: string, root: string, types: boolean): string[] {
  const to = (spec: string) =>
    relative(root, resolve(dirname(file), spec))
      .split(sep)
      .join('/');
  const out: string[] = [];
  for (const m of source.matchAll(STATIC))
    if ((types || m[1] === undefined) && (m[2] as string).startsWith('.'))
      out.push(to(m[2] as string));
  const code = source
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l))
    .join('\n');
  for (const m of code.matchAll(DYNAMIC))
    if ((m[1] as string).startsWith('.')) out.push(to(m[1] as string));
  return out;
}

/** The cycles of a graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('import cycles', () => {
  const root = resolve('src');
  const graph = (types: boolean) => {
    const g = new Map<string, string[]>();
    for (const f of walk(root))
      g.set(
        relative(root, f).split(sep).join('/'),
        importsOf(f, readFileSync(f, 'utf8'), root, types),
      );
    return g;
  };

  it('src/ has none between files at runtime', () => {
    const g = graph(false);
    expect(g.size).toBeGreaterThan(50);
    expect(cycles(g)).toEqual([]);
  });

  it('src/ has none between files counting type-only imports', () => {
    expect(cycles(graph(true))).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  });
});
