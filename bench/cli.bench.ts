/**
 * Cold paths a person feels, each beside its floor, process against process, interleaved:
 * - `elicit --help` (built, dist/cli/main.js; from source when there is no build) against
 *   `node -e ''`: goal within 3×;
 * - the demo's first screen (time to its first output) against a process that only loads the
 *   plain SDK's server and client (what any MCP host and server must load);
 * - an idle one-tool server's memory (RSS) against the plain SDK's, both over HTTP.
 *
 * Spawned processes are timed from spawn to their first byte (or exit); the two sides alternate
 * run by run and the median of each is kept.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, type Row, wanted } from './harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);

interface Timed {
  /** Wall time. */
  readonly ms: number;
  /**
   * CPU time of the process (user + system) at that moment, from /proc (10 ms ticks); less
   * swayed than wall time by the other processes of a shared machine. NaN once it has exited.
   */
  readonly cpuMs: number;
}

function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * ms from spawn to the first byte on stdout (or to exit when it prints nothing); with `marker`,
 * to the first output that contains it.
 */
function firstOutputMs(args: string[], marker?: string): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      resolve({ ms: performance.now() - start, cpuMs: cpuMsOf(child.pid) });
      child.kill();
    };
    let seen = '';
    child.stdout.on('data', (d) => {
      seen += String(d);
      if (marker === undefined || seen.includes(marker)) end();
    });
    child.once('exit', end);
    child.once('error', reject);
  });
}

async function interleaved(
  ours: string[],
  floor: string[],
  marker?: string,
): Promise<{
  ours: number;
  floor: number;
  ratios: number[];
  cpu: { ours: number; floor: number };
}> {
  const a: Timed[] = [];
  const b: Timed[] = [];
  const ratios: number[] = [];
  // One run of each first, unmeasured: the file system cache is warm for both.
  await firstOutputMs(ours, marker);
  await firstOutputMs(floor);
  for (let i = 0; i < RUNS; i++) {
    // The order turns every run, so neither side always follows the other.
    let x: Timed;
    let y: Timed;
    if (i % 2 === 0) {
      x = await firstOutputMs(ours, marker);
      y = await firstOutputMs(floor);
    } else {
      y = await firstOutputMs(floor);
      x = await firstOutputMs(ours, marker);
    }
    a.push(x);
    b.push(y);
    ratios.push(x.ms / y.ms);
  }
  ratios.sort((p, q) => p - q);
  return {
    ours: median(a.map((t) => t.ms)),
    floor: median(b.map((t) => t.ms)),
    ratios,
    cpu: { ours: median(a.map((t) => t.cpuMs)), floor: median(b.map((t) => t.cpuMs)) },
  };
}

/** Resident memory (KiB) of a child server once it is ready and has been idle a second. */
async function idleRssKiB(args: string[]): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (d) => {
        if (String(d).includes('ready')) resolve();
      });
      child.once('exit', () => reject(new Error(`${args.join(' ')} exited before ready`)));
    });
    await new Promise((r) => setTimeout(r, 1000));
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  } finally {
    child.kill();
  }
}

export default async function run(): Promise<Row[]> {
  const built = join(root, 'dist', 'cli', 'main.js');
  const cli = existsSync(built) ? built : join(root, 'src', 'cli', 'main.ts');
  const form = existsSync(built) ? 'built' : 'from source; npm run build for the built figure';
  const rows: Row[] = [];
  if (wanted('elicit --help')) {
    const help = await interleaved([cli, '--help'], ['-e', '']);
    rows.push({
      group: 'cold paths',
      name: `elicit --help (${form})`,
      value: help.ours,
      unit: 'ms',
      baseline: { name: "node -e ''", value: help.floor },
      ratio: help.ours / help.floor,
      range: [help.ratios[0] as number, help.ratios.at(-1) as number],
      target: '≤ 3.00× baseline time',
      met: help.ours / help.floor <= 3,
    });
  }
  const sdkLoad =
    "await import('@modelcontextprotocol/server'); await import('@modelcontextprotocol/client'); process.stdout.write('ready'); setTimeout(() => {}, 60_000)";
  if (wanted('elicit demo: first screen')) {
    const demo = await interleaved([cli, 'demo'], ['--input-type=module', '-e', sdkLoad]);
    rows.push({
      group: 'cold paths',
      name: `elicit demo: first screen, the server's line (${form}; CPU ${demo.cpu.ours.toFixed(0)} vs ${demo.cpu.floor.toFixed(0)} ms)`,
      value: demo.ours,
      unit: 'ms',
      baseline: { name: 'a process loading the plain SDK server + client', value: demo.floor },
      ratio: demo.ours / demo.floor,
      range: [demo.ratios[0] as number, demo.ratios.at(-1) as number],
    });
  }
  if (wanted('elicit demo: first menu')) {
    // Without a terminal the demo lists the tools (its menu's entries) before its tour.
    const menu = await interleaved(
      [cli, 'demo'],
      ['--input-type=module', '-e', sdkLoad],
      'tool book_trip',
    );
    rows.push({
      group: 'cold paths',
      name: `elicit demo: first menu, the tools listed (${form}; CPU ${menu.cpu.ours.toFixed(0)} vs ${menu.cpu.floor.toFixed(0)} ms)`,
      value: menu.ours,
      unit: 'ms',
      baseline: { name: 'a process loading the plain SDK server + client', value: menu.floor },
      ratio: menu.ours / menu.floor,
      range: [menu.ratios[0] as number, menu.ratios.at(-1) as number],
    });
  }
  if (!wanted('idle one-tool server')) return rows;
  const ours: number[] = [];
  const sdk: number[] = [];
  for (let i = 0; i < 3; i++) {
    ours.push(await idleRssKiB(['bench/load-server.ts', 'elicit', '0']));
    sdk.push(await idleRssKiB(['bench/load-server.ts', 'sdk', '0']));
  }
  const o = median(ours) / 1024;
  const s = median(sdk) / 1024;
  rows.push({
    group: 'cold paths',
    name: 'idle one-tool server over HTTP, RSS',
    value: o,
    unit: 'MiB',
    baseline: { name: 'plain SDK, same tool', value: s },
    ratio: o / s,
    target: '≤ 1.00× baseline',
    met: o / s <= 1,
  });
  return rows;
}
