/**
 * The root entry and elicit/schema must run anywhere (browsers, workers): walk their import
 * graph and refuse any Node built-in or third-party import.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Type-only imports vanish at runtime, so they are not followed.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function graph(entry: string): { files: string[]; external: string[] } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2]) as string;
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else external.add(spec);
    }
  }
  return { files: [...seen], external: [...external] };
}

describe('portable entries', () => {
  for (const [entry, allowed] of [
    ['src/index.ts', []],
    ['src/schema/index.ts', []],
    ['src/url/index.ts', ['tldts']],
    ['src/web/index.ts', []],
  ] as const) {
    it(`${entry} imports nothing Node-only (third-party: ${allowed.join(', ') || 'none'})`, () => {
      const { files, external } = graph(entry);
      expect(files.length).toBeGreaterThan(0);
      expect(external).toEqual(allowed);
      for (const file of files) {
        const source = readFileSync(file, 'utf8');
        expect(source, file).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/);
      }
    });
  }
  it('the detector itself finds node imports', () => {
    const { external } = graph('test/purity.test.ts');
    expect(external).toContain('node:fs');
    expect(builtinModules).toContain('fs');
  });
});
