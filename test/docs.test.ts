/**
 * Every ```ts block in README.md and docs/*.md runs here. `elicit/...` imports resolve to the
 * sources through the alias in vitest.config.ts.
 */
import { spawnSync } from 'node:child_process';
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

/** Commands in ```sh blocks: npm scripts exist, and `npx elicit` subcommands and options do. */
describe('shell commands in the docs', () => {
  const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
    string,
    string
  >;
  const lines = files.flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
      (m[1] as string)
        .split('\n')
        .map((l) => l.replace(/#.*$/, '').trim())
        .filter(Boolean)
        .map((line) => ({ file, line })),
    ),
  );
  it('finds the README commands', () => {
    expect(lines.map((l) => l.line)).toContain('npm install && npm start');
  });
  for (const { file, line } of lines) {
    it(`${file}: ${line}`, () => {
      for (const command of line.split('&&').map((c) => c.trim())) {
        const words = command.split(/\s+/);
        if (words[0] === 'npm') {
          const script = words[1] === 'run' ? words[2] : words[1];
          if (script !== 'install') expect(scripts).toHaveProperty(script as string);
          continue;
        }
        expect(words.slice(0, 2)).toEqual(['npx', 'elicit']);
        const sub = words[2] as string;
        const own = words.slice(3, words.includes('--') ? words.indexOf('--') : undefined);
        const help = spawnSync(process.execPath, [join(root, 'bin', 'elicit.js'), sub, '--help'], {
          encoding: 'utf8',
        });
        expect(help.status).toBe(0);
        for (const option of own.filter((w) => w.startsWith('--')))
          expect(help.stdout).toContain(option);
      }
    });
  }
});
