/**
 * Every ```ts block in README.md and docs/*.md runs here. `elicit/...` imports resolve to the
 * sources through the alias in vitest.config.ts.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'test', '.docs');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const files = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  describe(file, () => {
    if (blocks.length === 0) {
      it('has no TypeScript examples', () => expect(blocks).toEqual([]));
      return;
    }
    blocks.forEach((code, i) => {
      it(`example ${i + 1} runs`, async () => {
        const path = join(out, `${file.replace(/[/.]/g, '_')}_${i + 1}.ts`);
        writeFileSync(path, code);
        await import(path);
      });
    });
  });
}
