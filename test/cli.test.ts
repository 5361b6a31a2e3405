import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const launcher = join(root, 'bin', 'elicit.js');
const projectNode = realpathSync(join(root, 'node_modules', 'node', 'bin', 'node'));

const cli = (args: string[]) =>
  spawnSync(process.execPath, ['src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

describe('elicit CLI', () => {
  it('demo runs the scripted tour and exits 0 without a terminal', () => {
    const out = execFileSync(process.execPath, ['src/cli/main.ts', 'demo'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toContain('running the scripted tour');
    expect(out).toMatch(
      /◀ Booked BK-\d+: Ada Lovelace to Oslo on 2026-12-24, window seat, 1 bag\(s\), extras: wifi, meal\./,
    );
    expect(out).toContain('[danger] аpple.com looks like apple.com but is a different site.');
    expect(out).toContain('https://[xn--pple-43d.com]/login');
    expect(out).toContain("Enter Weather API key on the server's secure page");
    expect(out).toContain('Connect your calendar so this tool can use it for you.');
  });
  it('check reports problems with a non-zero exit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'elicit-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ type: 'object', properties: { a: { type: 'string', default: 'x' } } }),
    );
    const old = cli(['check', bad, '--revision', '2025-06-18']);
    expect(old.status).toBe(1);
    expect(old.stdout).toContain('keyword_revision properties.a.default');
    const ok = cli(['check', bad]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('ok: 1 field(s), valid for 2026-07-28');
  });
  it('explains bad usage', () => {
    expect(cli(['check']).stderr).toContain('elicit check needs a file');
    expect(cli(['nope']).status).toBe(2);
    expect(cli(['host']).stderr).toContain('elicit host needs a server');
    expect(cli(['host', 'not a url']).stderr).toContain('is not a URL');
    // The command's former name, kept until 0.3, shows the host's help.
    const help = cli(['connect', '--help']).stdout;
    expect(help).toContain('--answers <file.json>');
    expect(help).toContain('elicit host <url> [options]');
    expect(cli(['host', 'http://x', '--era', 'new']).stderr).toContain(
      '--era must be auto, legacy or modern',
    );
    expect(cli(['--help']).stdout).toContain('Usage:');
    expect(cli(['check', 'x.json', '--revision', '2024']).stderr).toContain(
      '--revision must be one of',
    );
  });
});

describe('bin/elicit.js', () => {
  const run = (node: string, args: string[], cwd = root) =>
    spawnSync(node, [launcher, ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });

  it('is what package.json installs as `elicit`, and engines says what it checks', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ elicit: './bin/elicit.js' });
    expect(pkg.files).toContain('bin');
    expect(readFileSync(launcher, 'utf8')).toContain(`var NEED = '${pkg.engines.node}'`);
  });

  it('refuses an older Node in one line, exit 1, no stack trace', () => {
    // The system Node of this machine is 20, older than node:sqlite without a flag needs.
    const old = '/usr/bin/node';
    const version = execFileSync(old, ['--version'], { encoding: 'utf8' }).trim();
    expect(version).toMatch(/^v(1\d|20|21|22\.([0-9]|1[0-2]))\./);
    const r = run(old, ['--help']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `elicit needs Node ^22.13.0 || >=23.5.0 (node:sqlite without a flag); this is Node ${version.slice(1)}. Install a newer Node, or in a clone run \`npx elicit\`, which uses the project's own.\n`,
    );
  });

  it("runs the sources on the project's Node in a clone", () => {
    const help = run(projectNode, ['--help'], tmpdir());
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('elicit demo');
    const dir = mkdtempSync(join(tmpdir(), 'elicit-'));
    const schema = join(dir, 's.json');
    writeFileSync(
      schema,
      JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }),
    );
    const ok = run(projectNode, ['check', schema]);
    expect(ok.stdout).toContain('ok: 1 field(s), valid for 2026-07-28');
    expect(run(projectNode, ['nope']).status).toBe(2);
  });

  it("hands over to the project's Node from another new-enough Node, keeping exit codes", () => {
    // A hard link is the same Node at another path: the launcher cannot tell it from a system one.
    const dir = mkdtempSync(join(tmpdir(), 'elicit-node-'));
    const other = join(dir, 'node');
    try {
      linkSync(projectNode, other);
    } catch {
      copyFileSync(projectNode, other);
    }
    const help = run(other, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage:');
    const bad = run(other, ['check']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('elicit check needs a file');
  });

  it('runs dist/cli/main.js when installed from a package (no src/)', () => {
    const pkg = mkdtempSync(join(tmpdir(), 'elicit-pkg-'));
    mkdirSync(join(pkg, 'bin'));
    mkdirSync(join(pkg, 'dist', 'cli'), { recursive: true });
    copyFileSync(launcher, join(pkg, 'bin', 'elicit.js'));
    writeFileSync(join(pkg, 'package.json'), '{"type": "module"}');
    writeFileSync(
      join(pkg, 'dist', 'cli', 'main.js'),
      'console.log("dist", process.argv.slice(2).join(" "));',
    );
    const r = spawnSync(projectNode, [join(pkg, 'bin', 'elicit.js'), 'check', 'x'], {
      encoding: 'utf8',
    });
    expect(r.stdout).toBe('dist check x\n');
    expect(r.status).toBe(0);
  });
});
