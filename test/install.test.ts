/**
 * A clean install: the lockfile already holds what `npm install` resolves on any platform
 * (platform-specific optional packages included), so installing never rewrites it. CI installs
 * in a fresh clone before the tests run; this checks the tracked file was left as committed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('install', () => {
  it('npm install left package-lock.json as committed', () => {
    expect(existsSync('.git')).toBe(true);
    const diff = execFileSync('git', ['diff', '--stat', '--', 'package-lock.json'], {
      encoding: 'utf8',
    });
    expect(diff, 'npm install rewrote package-lock.json: commit the complete lockfile').toBe('');
  });
});
