/**
 * A reference that cannot drift: every name a package entry exports (test/api-report.json, which
 * test/api.test.ts keeps equal to the entries themselves) is named, as a whole word, somewhere in
 * README.md or docs/*.md. A new export fails here until a line of the docs says what it is
 * (docs/reference.md has one per package when no guide fits).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

interface Surface {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

/** The exports of each entry the docs name nowhere, as `subpath: name` lines. */
export function undocumented(report: Record<string, Surface>, docs: string): string[] {
  const words = new Set(docs.match(/[A-Za-z_$][\w$]*/g) ?? []);
  return Object.entries(report).flatMap(([subpath, { values, types }]) =>
    [...values, ...types].filter((name) => !words.has(name)).map((name) => `${subpath}: ${name}`),
  );
}

const docs = [
  readFileSync(join(root, 'README.md'), 'utf8'),
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(join(root, 'docs', f), 'utf8')),
].join('\n');
const report = JSON.parse(readFileSync(join(root, 'test/api-report.json'), 'utf8')) as Record<
  string,
  Surface
>;

describe('every export is documented', () => {
  it('each name every package entry exports appears in README.md or docs/*.md', () => {
    const names = Object.values(report).reduce((n, s) => n + s.values.length + s.types.length, 0);
    expect(names).toBeGreaterThan(300);
    expect(undocumented(report, docs)).toEqual([]);
  });

  it('the check can fail: a name written nowhere, or only inside a longer word, is reported', () => {
    const fake = { 'elicit/x': { values: ['shown', 'hidden'], types: ['Part'] } };
    expect(undocumented(fake, '`shown` and Partial<T>')).toEqual([
      'elicit/x: hidden',
      'elicit/x: Part',
    ]);
  });
});
