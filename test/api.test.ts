/**
 * The public surface, locked: for each subpath in package.json `exports`, the names its entry
 * exports at run time and as types, compared with test/api-report.json. A change to the surface
 * shows up in review as a diff of that file; regenerate it deliberately with
 * `UPDATE_API_REPORT=1 npx vitest run test/api.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const reportFile = join(root, 'test/api-report.json');
const UPDATE = 'UPDATE_API_REPORT=1 npx vitest run test/api.test.ts';

interface Surface {
  readonly values: string[];
  readonly types: string[];
}

/** Subpath → source entry, from the `types` condition of package.json `exports` (dist → src). */
function entries(): [string, string][] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string' || target.types === undefined) return [];
    const source = target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
    return [[join('elicit', subpath).replace(/\/\.$/, ''), source] as [string, string]];
  });
}

const strip = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** Names a module exports only as types: `export type {…}`, `{ type X }`, `export type *`, declarations. */
function typeNames(file: string): string[] {
  const text = strip(readFileSync(file, 'utf8'));
  const names = new Set<string>();
  for (const m of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
    for (const part of (m[2] as string).split(',')) {
      const item = part.trim();
      if (item === '') continue;
      const typeOnly = m[1] !== undefined || item.startsWith('type ');
      const name = item
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop() as string;
      if (typeOnly) names.add(name);
    }
  }
  for (const m of text.matchAll(/export\s+type\s+\*\s+from\s+['"]([^'"]+)['"]/g))
    for (const name of typeNames(resolve(dirname(file), m[1] as string))) names.add(name);
  for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:interface|type)\s+([A-Za-z_$][\w$]*)/g))
    names.add(m[1] as string);
  return [...names];
}

async function surface(source: string): Promise<Surface> {
  // elicit/web defines custom elements on import; outside a browser a bare base class will do.
  (globalThis as { HTMLElement?: unknown }).HTMLElement ??= class {};
  const mod = (await import(pathToFileURL(join(root, source)).href)) as Record<string, unknown>;
  const values = Object.keys(mod).sort();
  const types = typeNames(join(root, source))
    .filter((name) => !values.includes(name))
    .sort();
  return { values, types };
}

describe('public surface (test/api-report.json)', async () => {
  const current: Record<string, Surface> = {};
  for (const [subpath, source] of entries()) current[subpath] = await surface(source);

  if (process.env.UPDATE_API_REPORT === '1')
    writeFileSync(reportFile, `${JSON.stringify(current, null, 2)}\n`);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Record<string, Surface>;

  it('covers every subpath of package.json exports', () => {
    expect(Object.keys(report).sort(), `subpaths changed; update the report: ${UPDATE}`).toEqual(
      Object.keys(current).sort(),
    );
  });

  for (const [subpath, now] of Object.entries(current)) {
    it(`${subpath} exports exactly what the report lists`, () => {
      const was = report[subpath] ?? { values: [], types: [] };
      const added = [
        ...now.values.filter((n) => !was.values.includes(n)),
        ...now.types.filter((n) => !was.types.includes(n)).map((n) => `type ${n}`),
      ];
      const removed = [
        ...was.values.filter((n) => !now.values.includes(n)),
        ...was.types.filter((n) => !now.types.includes(n)).map((n) => `type ${n}`),
      ];
      expect(
        { added, removed },
        `${subpath}: the public surface changed. If that is deliberate, update the report (${UPDATE}) and review its diff; otherwise stop exporting the new names.`,
      ).toEqual({ added: [], removed: [] });
    });
  }
});
