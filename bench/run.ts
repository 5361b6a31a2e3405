/**
 * `npm run bench`: runs every bench/*.bench.ts, prints one table of ratios against the named
 * baselines, and writes bench/results/latest.json. Targets are reported, never asserted.
 * `npm run bench <file> [section]`: only the files whose name contains `file`, and inside them
 * only the sections and cases whose label contains `section`.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from '../scripts/table.ts';
import type { Row } from './harness.ts';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
// The second argument picks sections and cases inside the files (see `wanted` in harness.ts).
if (process.argv[3] !== undefined) process.env.BENCH_ONLY = process.argv[3];
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
  ratio:
    r.ratio === undefined
      ? ''
      : `${r.ratio.toFixed(2)}×${r.range === undefined ? '' : ` (${r.range[0].toFixed(2)}–${r.range[1].toFixed(2)})`}`,
  'CPU/call':
    r.cpu === undefined ? '' : `${r.cpu.ours.toFixed(0)} / ${r.cpu.baseline.toFixed(0)} µs`,
  target: r.target ?? '',
  met: r.met === undefined ? '' : r.met ? 'yes' : 'NO',
}));
printTable(
  ['group', 'case', 'ours', 'baseline', 'ratio', 'CPU/call', 'target', 'met'] as const,
  table,
);

const cores = cpus();
const machine = {
  cpu: cores[0]?.model ?? 'unknown',
  cores: cores.length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  os: `${platform()} ${release()} ${arch()}`,
};
console.log(
  `\nNode ${process.version}, ${machine.cpu} × ${machine.cores}, ${machine.memoryGiB} GiB, ${machine.os}`,
);

const out = join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'latest.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, machine, only: { file: only ?? null, section: process.env.BENCH_ONLY ?? null }, rows }, null, 2)}\n`,
);
console.log(`wrote ${join('bench', 'results', 'latest.json')}`);
