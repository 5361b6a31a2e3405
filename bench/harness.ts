/**
 * A small benchmark harness: each case runs in batches until a time budget is spent, and the
 * median ns/op over several samples is kept. Cases are paired with a baseline measured in the
 * same process run, and reported as ratios.
 */

export interface Case {
  readonly name: string;
  /** One operation; its return value is kept so the work cannot be optimised away. */
  readonly run: () => unknown;
}

export interface Row {
  readonly group: string;
  readonly name: string;
  /** Median nanoseconds per operation (or the unit given). */
  readonly value: number;
  readonly unit: string;
  readonly baseline?: { readonly name: string; readonly value: number };
  /** ours / baseline for times (lower is better); baseline / ours for throughput. */
  readonly ratio?: number;
  readonly target?: string;
  readonly met?: boolean;
}

let sink: unknown;
export function keep(value: unknown): void {
  sink = value;
}

const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 150);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);

/** Median ns per call of `fn`. */
export function timeNs(fn: () => unknown): number {
  // Calibrate a batch size that takes ~10 ms.
  let batch = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) sink = fn();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ms > 10 || batch > 1e8) break;
    batch *= ms < 1 ? 10 : 2;
  }
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    let ops = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    while (elapsed < BigInt(SAMPLE_MS) * 1_000_000n) {
      for (let i = 0; i < batch; i++) sink = fn();
      ops += batch;
      elapsed = process.hrtime.bigint() - start;
    }
    samples.push(Number(elapsed) / ops);
  }
  samples.sort((a, b) => a - b);
  void sink;
  return samples[Math.floor(samples.length / 2)] as number;
}

/** Median ms per call of an async `fn` (for round trips). */
export async function timeAsyncMs(fn: () => Promise<unknown>, budgetMs = 1000): Promise<number> {
  for (let i = 0; i < 20; i++) await fn();
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    let ops = 0;
    const start = performance.now();
    while (performance.now() - start < budgetMs / SAMPLES) {
      sink = await fn();
      ops++;
    }
    samples.push((performance.now() - start) / ops);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

/** A timed pair: ours vs a baseline; ratio = ours / baseline time; target is a max ratio. */
export function pair(
  group: string,
  name: string,
  ours: Case,
  baseline: Case,
  maxRatio?: number,
): Row {
  // Interleave to spread machine noise over both sides.
  const a1 = timeNs(ours.run);
  const b1 = timeNs(baseline.run);
  const a2 = timeNs(ours.run);
  const b2 = timeNs(baseline.run);
  const value = Math.min(a1, a2);
  const base = Math.min(b1, b2);
  const ratio = value / base;
  return {
    group,
    name: `${name}: ${ours.name}`,
    value,
    unit: 'ns/op',
    baseline: { name: baseline.name, value: base },
    ratio,
    ...(maxRatio === undefined
      ? {}
      : { target: `≤ ${maxRatio.toFixed(2)}× baseline time`, met: ratio <= maxRatio }),
  };
}

/** A single measurement with an absolute target (max ns/op). */
export function single(group: string, name: string, run: () => unknown, maxNs?: number): Row {
  const value = timeNs(run);
  return {
    group,
    name,
    value,
    unit: 'ns/op',
    ...(maxNs === undefined ? {} : { target: `≤ ${maxNs} ns`, met: value <= maxNs }),
  };
}
