/**
 * One story about encryption: the terminal (analyzeUrl, before it opens a page) and the secret
 * page say the same sentence about the page's address — on loopback http, not encrypted on the
 * way but never leaving the computer; on https, encrypted on the way — and the page adds only
 * what is true of the vault (stored encrypted).
 */
import { describe, expect, it } from 'vitest';
import type { Gated } from '../../src/connect/context.ts';
import { secretPage } from '../../src/connect/secret-routes.ts';
import { TRANSIT_HTTPS, TRANSIT_LOOPBACK_HTTP } from '../../src/kernel/transit.ts';
import { analyzeUrl } from '../../src/url/index.ts';

const gated = {
  record: { id: 'r1', purpose: 'secret', subject: 'weather_api_key', label: 'Weather API key' },
  session: { id: 's', principal: 'p', name: 'Ada', csrf: 'c' },
} as unknown as Gated;

const paragraph = async (base: string) => {
  const html = await secretPage(gated, new URL(base)).text();
  return /<p class="muted">([^<]*)<\/p>/.exec(html)?.[1] ?? '';
};

describe('what the terminal and the secret page say about encryption', () => {
  it('loopback http: the same sentence in both places, never "encrypted" on its own', async () => {
    const terminal = analyzeUrl('http://127.0.0.1:8787/elicit/r1').warnings.find(
      (w) => w.code === 'not_https',
    );
    expect(terminal?.message).toBe(TRANSIT_LOOPBACK_HTTP);
    const page = await paragraph('http://127.0.0.1:8787');
    expect(page.startsWith(TRANSIT_LOOPBACK_HTTP)).toBe(true);
    expect(page).toContain('stored encrypted');
    expect(page).not.toMatch(/goes straight to the server that asked, encrypted/);
  });

  it('https: the terminal warns of nothing; the page says encrypted on the way', async () => {
    const terminal = analyzeUrl('https://pages.example.com/elicit/r1').warnings;
    expect(terminal.some((w) => w.code === 'not_https')).toBe(false);
    const page = await paragraph('https://pages.example.com');
    expect(page.startsWith(TRANSIT_HTTPS)).toBe(true);
    expect(page).toContain('stored encrypted');
    expect(page).not.toContain('not encrypted');
  });
});
