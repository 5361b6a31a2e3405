/**
 * A `redis-server` of a test's own, on a free high port, that the test may kill and start
 * again on the same port (never the shared one on 6379). By default persistence is off
 * (`--save '' --appendonly no`): a restart is an empty server, as after a failover without
 * replication. With `persist`, every write is in an append-only file synced at once
 * (`--appendfsync always`), so a server killed with SIGKILL comes back with everything it
 * acknowledged, as a durable Redis does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.ts';

export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server with SIGKILL and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as a hung server. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /** Kills it for good and removes its files: call it in afterAll (or a finally). */
  close(): Promise<void>;
}

const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/**
 * Starts one. The caller closes it; should a test die first, it is killed when the test
 * process exits, so none outlives its run.
 */
export async function ownRedis(options: { persist?: boolean } = {}): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'elicit-redis-'));
  const persistence = options.persist
    ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir]
    : ['--appendonly', 'no'];
  let port = await freePort();
  while (port < 20_000) port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
      { stdio: 'ignore' },
    );
    const until = Date.now() + 10_000;
    while (!(await reachable(port))) {
      if (Date.now() > until) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const kill = async () => {
    const c = child;
    child = undefined;
    if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  const onExit = () => child?.kill('SIGKILL');
  process.once('exit', onExit);
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async close() {
      process.off('exit', onExit);
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
