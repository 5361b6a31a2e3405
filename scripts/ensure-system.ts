/**
 * `npm test` needs a few system programs: tmux for the real-terminal test, Chromium for the
 * browser tests (driven by playwright-core; it cannot download its own browser here). On a fresh machine
 * of this project's kind they come from Debian's packages; this installs what is missing when
 * it can (root with apt-get), and otherwise says what to install. It never skips silently.
 */
import { execFileSync, spawnSync } from 'node:child_process';

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
