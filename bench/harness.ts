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
  /** Lowest and highest ratio over the ABBA repeats (the ratio itself is their median). */
  readonly range?: readonly [number, number];
  /** CPU µs per operation (user + system, this process), ours and the baseline's. */
  readonly cpu?: { readonly ours: number; readonly baseline: number };
}

/**
 * `npm run bench <file> <section>`: only the sections and cases whose label contains `section`
 * (case-insensitive) run, so one row can be measured without the rest of its file. Every
 * section runs when it is not given.
 */
export function wanted(...labels: string[]): boolean {
  const only = process.env.BENCH_ONLY?.toLowerCase();
  return only === undefined || only === '' || labels.some((l) => l.toLowerCase().includes(only));
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

export interface Slice {
  /** Wall milliseconds per call. */
  readonly ms: number;
  /** CPU microseconds per call (user + system of this process). */
  readonly cpuUs: number;
}

/**
 * Calls `fn` one after another for `sliceMs` and returns its wall and CPU cost per call. A full
 * collection runs first (with --expose-gc, which `npm run bench` passes), untimed: garbage the
 * previous slice left is not collected on this one's time.
 */
export async function slice(fn: () => Promise<unknown>, sliceMs: number): Promise<Slice> {
  (globalThis as { gc?: () => void }).gc?.();
  let ops = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let now = start;
  while (now - start < sliceMs) {
    sink = await fn();
    ops++;
    now = performance.now();
  }
  const used = process.cpuUsage(cpu);
  return { ms: (now - start) / ops, cpuUs: (used.user + used.system) / ops };
}

export interface AbbaResult {
  /** Ours ÷ baseline wall time per call, one per repeat, ascending. */
  readonly ratios: readonly number[];
  readonly ratio: number;
  readonly ours: Slice;
  readonly baseline: Slice;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

// Many short slices rather than a few long ones: a burst of other load on the machine spoils one
// repeat's ratio, and the median of many repeats leaves it out.
const REPEATS = Number(process.env.BENCH_REPEATS ?? 9);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 200);

/**
 * Ours and the baseline interleaved ours, baseline, baseline, ours (ABBA), repeated: a drift of
 * the machine during a repeat weighs on both sides alike. Each repeat gives one time ratio; the
 * result is their median with the range, and each side's median wall and CPU cost per call.
 */
export async function abba(
  ours: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  { repeats = REPEATS, sliceMs = SLICE_MS } = {},
): Promise<AbbaResult> {
  await slice(ours, sliceMs / 2);
  await slice(baseline, sliceMs / 2);
  const ratios: number[] = [];
  const a: Slice[] = [];
  const b: Slice[] = [];
  for (let r = 0; r < repeats; r++) {
    const a1 = await slice(ours, sliceMs);
    const b1 = await slice(baseline, sliceMs);
    const b2 = await slice(baseline, sliceMs);
    const a2 = await slice(ours, sliceMs);
    ratios.push((a1.ms + a2.ms) / (b1.ms + b2.ms));
    a.push(a1, a2);
    b.push(b1, b2);
  }
  const side = (xs: Slice[]): Slice => ({
    ms: median(xs.map((x) => x.ms)),
    cpuUs: median(xs.map((x) => x.cpuUs)),
  });
  ratios.sort((x, y) => x - y);
  return { ratios, ratio: median(ratios), ours: side(a), baseline: side(b) };
}

/** A throughput row from an ABBA result: ratio = baseline time ÷ ours (higher is better). */
export function throughputRow(
  group: string,
  name: string,
  result: AbbaResult,
  baselineName: string,
  /** The goal; none for a reference row (what a case could reach at most). */
  minRatio: number | undefined,
): Row {
  const ratio = 1 / result.ratio;
  const lo = 1 / (result.ratios[result.ratios.length - 1] as number);
  const hi = 1 / (result.ratios[0] as number);
  return {
    group,
    name,
    value: result.ours.ms * 1e6,
    unit: 'ns/op',
    baseline: { name: baselineName, value: result.baseline.ms * 1e6 },
    ratio,
    range: [lo, hi],
    cpu: { ours: result.ours.cpuUs, baseline: result.baseline.cpuUs },
    ...(minRatio === undefined
      ? {}
      : { target: `≥ ${minRatio.toFixed(2)}× baseline throughput`, met: ratio >= minRatio }),
  };
}

/** Heap in use after a full collection (`npm run bench` passes --expose-gc; without it, as is). */
export function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** The `_meta` a 2026-07-28 request carries: revision, client and its capabilities. */
export function modernMeta(client: string, capabilities: object = { elicitation: {} }) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
}

/**
 * A maker of the same in-process 2026-07-28 `tools/call` Request, with the headers the revision
 * requires, to hand straight to an entry's `fetch` (no sockets: only the server's work counts).
 */
export function toolCallRequest(tool: string, meta: object = modernMeta('bench')): () => Request {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: tool, arguments: {}, _meta: meta },
  });
  return () =>
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        host: '127.0.0.1',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': tool,
      },
      body,
    });
}
