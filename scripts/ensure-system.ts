/**
 * `npm test` needs a few system programs: tmux for the real-terminal test, Chromium for the
 * browser tests (driven by playwright-core; it cannot download its own browser here). On a fresh machine
 * of this project's kind they come from Debian's packages; this installs what is missing when
 * it can (root with apt-get), and otherwise says what to install. It never skips silently.
 *
 * It also needs the services the store tests run on: Redis on 127.0.0.1:6379 and PostgreSQL on
 * 127.0.0.1:5432 (the machine starts both; the tests make their own key prefixes and schemas in
 * the `postgres` database). One that does not answer stops the run here with how to start it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { connect } from 'node:net';

const SERVICES = [
  {
    name: 'Redis',
    port: 6379,
    start: 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
  },
  {
    name: 'PostgreSQL',
    port: 5432,
    start: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  },
];

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
const down: typeof SERVICES = [];
for (const service of SERVICES) if (!(await answers(service.port))) down.push(service);
if (down.length > 0) {
  for (const d of down)
    process.stderr.write(
      `The tests need ${d.name} on 127.0.0.1:${d.port}, which does not answer; start it (for example: ${d.start}) and run npm test again.\n`,
    );
  process.exit(1);
}

const NEEDED: { program: string; pkg: string }[] = [
  { program: 'tmux', pkg: 'tmux' },
  { program: 'chromium', pkg: 'chromium' },
];

const has = (program: string) =>
  spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
const missing = NEEDED.filter((n) => !has(n.program));
if (missing.length === 0) process.exit(0);

const pkgs = missing.map((m) => m.pkg);
const root = process.getuid?.() === 0;
if (root && has('apt-get')) {
  process.stderr.write(`Installing ${pkgs.join(', ')} from Debian's packages for the tests…\n`);
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], {
      stdio: 'inherit',
    }).status === 0;
  if (!install()) {
    execFileSync('apt-get', ['update'], { stdio: 'inherit' });
    if (!install()) process.exit(1);
  }
  process.exit(0);
}
process.stderr.write(
  `The tests need ${pkgs.join(', ')}: install ${pkgs.length === 1 ? 'it' : 'them'} (for example: sudo apt-get install ${pkgs.join(' ')}) and run npm test again.\n`,
);
process.exit(1);
