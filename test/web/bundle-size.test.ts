/**
 * The browser bundle's size, as `npm run build` makes and measures it, is the size docs/web.md
 * states (to within 0.5 kB, so small changes elsewhere need no doc edit), and within its budget.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type UserConfig } from 'tsdown';
import { afterAll, describe, expect, it } from 'vitest';
import { BUDGET_KB, measure } from '../../scripts/bundle-size.ts';
import configs from '../../tsdown.config.ts';

const out = mkdtempSync(join(tmpdir(), 'elicit-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('dist/browser/elicit-web.js', () => {
  it('is the size docs/web.md states, and within budget', async () => {
    const browser = (configs as UserConfig[]).find(
      (c) => typeof c.entry === 'object' && 'elicit-web' in (c.entry as object),
    ) as UserConfig;
    await build({ ...browser, outDir: out, config: false, logLevel: 'silent' });
    const size = measure(join(out, 'elicit-web.js'));
    const docs = readFileSync('docs/web.md', 'utf8');
    const stated = /about ([\d.]+) kB minified and ([\d.]+) kB gzipped/.exec(docs);
    expect(stated, 'docs/web.md states the size').not.toBeNull();
    expect(Math.abs(Number(stated?.[1]) - size.minifiedKb)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(Number(stated?.[2]) - size.gzippedKb)).toBeLessThanOrEqual(0.5);
    expect(size.gzippedKb).toBeLessThanOrEqual(BUDGET_KB);
  }, 120_000);
});
