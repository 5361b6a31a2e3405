/**
 * One meaning per word across the package entries (docs/architecture.md, "Vocabulary"): a name
 * that two entries export is one thing, re-exported. A value is the same object in both; a type
 * is declared once under src/. A deprecated alias (its doc comment says `@deprecated`, see
 * CHANGELOG.md) is an old spelling kept for a while, not a second declaration.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

interface Surface {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

/**
 * Names two entries export with two declarations that are still to be folded into one, each with
 * why they differ today. A new one fails the test.
 */
const TWO_MEANINGS: Readonly<Record<string, string>> = {};

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

const sources = walk(join(root, 'src')).map((f) => readFileSync(f, 'utf8'));

/** Declarations of `name` under src/: those that are not deprecated aliases, and those that are. */
export function declared(
  name: string,
  texts: readonly string[] = sources,
): { live: number; deprecated: number } {
  const pattern = new RegExp(
    `(/\\*\\*(?:(?!\\*/)[\\s\\S])*\\*/\\s*)?export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:interface|type|class|const|let|function|enum)\\s+${name.replace(/\$/g, '\\$')}\\b`,
    'g',
  );
  const found = texts.flatMap((t) => [...t.matchAll(pattern)]);
  const deprecated = found.filter((m) => (m[1] ?? '').includes('@deprecated')).length;
  return { live: found.length - deprecated, deprecated };
}

const declarations = (name: string, texts?: readonly string[]) => declared(name, texts).live;

const report = JSON.parse(readFileSync(join(root, 'test/api-report.json'), 'utf8')) as Record<
  string,
  Surface
>;
const exporters = new Map<string, string[]>();
for (const [subpath, { values, types }] of Object.entries(report))
  for (const name of [...values, ...types])
    exporters.set(name, [...(exporters.get(name) ?? []), subpath]);
const shared = [...exporters].filter(([, subpaths]) => subpaths.length > 1);

/** Subpath → source entry, from package.json `exports` (dist → src), as test/api.test.ts reads it. */
function sourceOf(subpath: string): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, { types?: string }>;
  };
  const key = subpath === 'elicit' ? '.' : `.${subpath.slice('elicit'.length)}`;
  return String(pkg.exports[key]?.types)
    .replace(/^\.\/dist\//, 'src/')
    .replace(/\.d\.ts$/, '.ts');
}

describe('one meaning per exported name', () => {
  it('a name several entries export is declared once (deprecated aliases aside)', () => {
    expect(shared.length).toBeGreaterThan(3);
    const twice = shared
      .filter(([name]) => TWO_MEANINGS[name] === undefined && declarations(name) > 1)
      .map(([name, subpaths]) => `${name}: ${subpaths.join(', ')}`);
    expect(twice).toEqual([]);
    // Each listed pair still exists: once folded, its line goes.
    for (const name of Object.keys(TWO_MEANINGS))
      expect(declarations(name), name).toBeGreaterThan(1);
  });

  it('a value several entries export is the same object in each', async () => {
    (globalThis as { HTMLElement?: unknown }).HTMLElement ??= class {};
    const modules = new Map<string, Record<string, unknown>>();
    for (const subpath of Object.keys(report))
      modules.set(
        subpath,
        (await import(pathToFileURL(join(root, sourceOf(subpath))).href)) as Record<
          string,
          unknown
        >,
      );
    const differ = shared
      .filter(([name, subpaths]) => {
        const first = modules.get(subpaths[0] as string)?.[name];
        return first !== undefined && subpaths.some((s) => modules.get(s)?.[name] !== first);
      })
      .map(([name, subpaths]) => `${name}: ${subpaths.join(', ')}`);
    // A deprecated alias keeps its old spelling in one entry, the same word in another meaning
    // something else, until it goes (CHANGELOG.md).
    expect(
      differ.filter((line) => declared(line.split(':')[0] as string).deprecated === 0),
    ).toEqual([]);
  });

  it('the check can fail: two declarations of a name count as two, an alias does not', () => {
    const texts = [
      'export interface Limits { a: number }',
      '/** Bounds. */\nexport type Limits = { b: number };',
      '/** @deprecated Renamed `Limits`. */\nexport type Limits2 = Limits;',
      '/** @deprecated Renamed `Limits`. */\nexport const Limits = 1;',
    ];
    expect(declared('Limits', texts)).toEqual({ live: 2, deprecated: 1 });
    expect(declared('Limits2', texts)).toEqual({ live: 0, deprecated: 1 });
  });
});
