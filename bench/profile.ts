/**
 * `npm run profile [case]`: profiles one paired server case (server-cases.ts) on both sides in
 * one process with the V8 sampling profiler, and prints self time per call by where the code
 * lives: elicit, the SDK, zod, Node's own modules, garbage collection, other. Without a case it
 * lists them; a case is picked by any part of its name.
 *
 *   npm run profile -- "one round: ask.form(hoisted"
 */
import { Session } from 'node:inspector/promises';
import { printTable } from '../scripts/table.ts';
import { serverCases } from './server-cases.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly url: string; readonly functionName: string };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const AREAS = ['elicit', 'SDK', 'zod', 'Node', 'GC', 'other'] as const;
type Area = (typeof AREAS)[number];

function area(node: ProfileNode): Area {
  const { url, functionName } = node.callFrame;
  if (functionName === '(garbage collector)') return 'GC';
  if (url.includes('/node_modules/@modelcontextprotocol/')) return 'SDK';
  if (url.includes('/node_modules/zod/')) return 'zod';
  if (url.includes('/src/')) return 'elicit';
  if (url.startsWith('node:') || (url === '' && functionName !== '(idle)')) return 'Node';
  return 'other';
}

// Idle time, and the profiler's own: stopping it builds the profile under `Session.post`, which
// a slice's last samples land in (more of them on the side whose calls take longer).
const ignored = (node: ProfileNode) =>
  node.callFrame.functionName === '(idle)' ||
  (node.callFrame.functionName === 'post' && node.callFrame.url === 'node:inspector');

/** Self time by area and by function, summed over profiled slices, with the calls they made. */
class Tally {
  readonly areas = new Map<Area, number>(AREAS.map((a) => [a, 0]));
  readonly fns = new Map<string, number>();
  calls = 0;

  add(profile: Profile, calls: number): void {
    this.calls += calls;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      const dt = profile.timeDeltas[i] ?? 0;
      if (node === undefined || ignored(node)) return;
      const a = area(node);
      this.areas.set(a, (this.areas.get(a) ?? 0) + dt);
      const where = node.callFrame.url.replace(/^.*\/(node_modules|src)\//, '$1/');
      const key = `${node.callFrame.functionName || '(anonymous)'} ${where}`;
      this.fns.set(key, (this.fns.get(key) ?? 0) + dt);
    });
  }

  /** Microseconds of self time per call, by area and by function, plus the heaviest functions. */
  summary() {
    const per = (us: number) => us / this.calls;
    const perFn = new Map([...this.fns].map(([k, us]) => [k, per(us)]));
    return {
      areas: new Map([...this.areas].map(([a, us]) => [a, per(us)])),
      perFn,
      top: [...perFn].sort((x, y) => y[1] - x[1]).slice(0, 12),
    };
  }
}

async function profileSlice(session: Session, fn: () => Promise<unknown>, ms: number, into: Tally) {
  await session.post('Profiler.start');
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await fn();
    calls++;
  }
  const { profile } = await session.post('Profiler.stop');
  into.add(profile as unknown as Profile, calls);
}

const wanted = process.argv[2];
const { cases, close } = await serverCases();
const picked = wanted === undefined ? undefined : cases.find((c) => c.name.includes(wanted));
if (picked === undefined) {
  console.log(`cases:\n${cases.map((c) => `  ${c.name}`).join('\n')}`);
  await close();
  process.exit(wanted === undefined ? 0 : 1);
}
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 50 });
const ms = Number(process.env.PROFILE_MS ?? 6000);
// Both sides warm, in turn, before either is profiled: the side profiled first would otherwise
// carry the process's own warm-up (compilation, heap growth) into its figures.
const warmUntil = performance.now() + Math.min(ms, 2000);
while (performance.now() < warmUntil) {
  for (let i = 0; i < 20; i++) await picked.ours();
  for (let i = 0; i < 20; i++) await picked.baseline();
}
// Profiled in interleaved slices (ABBA), as the bench times them: a machine that speeds up or
// slows down while profiling weighs on both sides alike.
const oursTally = new Tally();
const baseTally = new Tally();
const SLICES = 8;
for (let i = 0; i < SLICES / 2; i++) {
  await profileSlice(session, picked.ours, ms / SLICES, oursTally);
  await profileSlice(session, picked.baseline, ms / SLICES, baseTally);
  await profileSlice(session, picked.baseline, ms / SLICES, baseTally);
  await profileSlice(session, picked.ours, ms / SLICES, oursTally);
}
const ours = oursTally.summary();
const base = baseTally.summary();
await close();
session.disconnect();

console.log(`${picked.name}\nself time per call, µs (elicit side | ${picked.baselineName} side)\n`);
const total = (m: Map<Area, number>) => [...m.values()].reduce((a, b) => a + b, 0);
printTable(['area', 'elicit side', 'baseline side'] as const, [
  ...AREAS.map((a) => ({
    area: a,
    'elicit side': (ours.areas.get(a) ?? 0).toFixed(1),
    'baseline side': (base.areas.get(a) ?? 0).toFixed(1),
  })),
  {
    area: 'total',
    'elicit side': total(ours.areas).toFixed(1),
    'baseline side': total(base.areas).toFixed(1),
  },
]);
for (const [label, side] of [
  ['elicit side', ours],
  ['baseline side', base],
] as const) {
  console.log(`\nheaviest functions, ${label} (µs per call):`);
  for (const [k, us] of side.top) console.log(`  ${us.toFixed(1).padStart(6)}  ${k}`);
}

// Where the gap is: the functions whose self time differs most between the sides.
const names = new Set([...ours.perFn.keys(), ...base.perFn.keys()]);
const gaps = [...names]
  .map((k) => [k, (ours.perFn.get(k) ?? 0) - (base.perFn.get(k) ?? 0)] as const)
  .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
  .slice(0, 16);
console.log('\nlargest differences, elicit side − baseline side (µs per call):');
for (const [k, us] of gaps)
  console.log(`  ${`${us >= 0 ? '+' : '−'}${Math.abs(us).toFixed(1)}`.padStart(7)}  ${k}`);

// What elicit's own area is made of, on the elicit side.
const own = [...ours.perFn]
  .filter(([k]) => k.includes(' src/'))
  .sort((x, y) => y[1] - x[1])
  .slice(0, 16);
console.log("\nelicit's own functions, elicit side (µs per call):");
for (const [k, us] of own) console.log(`  ${us.toFixed(1).padStart(6)}  ${k}`);
