import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

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
    expect(cli(['connect']).stderr).toContain('elicit connect needs a server');
    expect(cli(['connect', 'not a url']).stderr).toContain('is not a URL');
    expect(cli(['connect', '--help']).stdout).toContain('--answers <file.json>');
    expect(cli(['connect', 'http://x', '--era', 'new']).stderr).toContain(
      '--era must be auto, legacy or modern',
    );
    expect(cli(['--help']).stdout).toContain('Usage:');
    expect(cli(['check', 'x.json', '--revision', '2024']).stderr).toContain(
      '--revision must be one of',
    );
  });
});
