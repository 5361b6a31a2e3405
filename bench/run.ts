/**
 * `npm run bench`: runs every bench/*.bench.ts, prints one table of ratios against the named
 * baselines, and writes bench/results/latest.json. Targets are reported, never asserted.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from '../scripts/table.ts';
import type { Row } from './harness.ts';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts') && (only === undefined || f.includes(only)))
  .sort();

function fmt(value: number, unit: string): string {
  if (unit !== 'ns/op') return `${value.toFixed(value < 10 ? 2 : 0)} ${unit}`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} ms`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(2)} µs`;
  return `${value.toFixed(1)} ns`;
}

const rows: Row[] = [];
for (const file of files) {
  const mod = (await import(join(here, file))) as { default: () => Row[] | Promise<Row[]> };
  process.stderr.write(`running ${file}…\n`);
  rows.push(...(await mod.default()));
}

const table = rows.map((r) => ({
  group: r.group,
  case: r.name,
  ours: fmt(r.value, r.unit),
  baseline: r.baseline === undefined ? '' : `${fmt(r.baseline.value, r.unit)} (${r.baseline.name})`,
  ratio: r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
  target: r.target ?? '',
  met: r.met === undefined ? '' : r.met ? 'yes' : 'NO',
}));
printTable(['group', 'case', 'ours', 'baseline', 'ratio', 'target', 'met'] as const, table);

const out = join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'latest.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`,
);
console.log(`\nwrote ${join('bench', 'results', 'latest.json')}`);
