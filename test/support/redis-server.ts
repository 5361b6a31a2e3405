/**
 * A `redis-server` of a test's own, on a free high port, that the test may kill and start
 * again on the same port (never the shared one on 6379). Persistence is off: a restart is an
 * empty server, as after a failover without replication.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll } from 'vitest';
import { freePort } from './processes.ts';

export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server with SIGKILL and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
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

/** Starts one for the calling file; it is killed after the file's tests. */
export async function ownRedis(): Promise<OwnRedis> {
  let port = await freePort();
  while (port < 20_000) port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
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
  afterAll(kill);
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, kill, start };
}
