/**
 * What is sent is what was reviewed, on every renderer (terminal, scripted, the web element in
 * Chromium): the form starts from the defaults, the person clears a text field that has a
 * default and unticks an optional multi-select, and the review and the answer the pipeline sends
 * agree field by field. No default comes back after the review.
 */
import { PassThrough } from 'node:stream';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormState } from '../../src/client/form-state.ts';
import { createPipeline } from '../../src/client/pipeline.ts';
import { scriptedRenderer } from '../../src/client/scripted.ts';
import { terminalRenderer } from '../../src/client/terminal.ts';
import type { FormResponse, Renderer } from '../../src/client/types.ts';
import { compileSchema } from '../../src/schema/index.ts';
import { launchBrowser } from '../support/browser.ts';
import { startTestPage } from '../support/web-page.ts';

const requestedSchema = {
  type: 'object',
  properties: {
    note: { type: 'string', title: 'Note', default: 'hello' },
    fish: {
      type: 'array',
      title: 'Fish',
      items: { type: 'string', enum: ['fish-1', 'fish-2'] },
      default: ['fish-1'],
    },
    size: { type: 'string', title: 'Size', enum: ['s', 'm'], default: 'm' },
  },
};
const schema = compileSchema(requestedSchema);

/** The answer the pipeline sends for what `renderer` returns, as the bytes on the wire. */
async function sent(renderer: Renderer): Promise<{ action: string; content?: object }> {
  const pipeline = createPipeline({ renderer, rateLimit: false });
  const outcome = await pipeline.handle(
    { mode: 'form', message: 'Check', requestedSchema },
    {
      server: { name: 'test-server' },
      revision: '2025-11-25',
      signal: new AbortController().signal,
    },
  );
  return JSON.parse(JSON.stringify(outcome));
}

/** The review rows the content would show: label → shown value. */
function reviewOf(content: object): Record<string, string> {
  const rows = new FormState({ schema, initial: content as Record<string, unknown> }).review();
  return Object.fromEntries(rows.map((r) => [r.label, r.value]));
}

const EXPECTED_REVIEW = { Note: '—', Fish: '(none)', Size: 'm' };

let browser: Browser | undefined;
let site: Awaited<ReturnType<typeof startTestPage>> | undefined;
beforeAll(async () => {
  site = await startTestPage();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('what is sent is what was reviewed', () => {
  it('terminal: a cleared default and an unticked multi-select stay so', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (d: Buffer) => {
      screen += d.toString();
    });
    const type = async (...keys: string[]) => {
      for (const k of keys) {
        await new Promise((r) => setTimeout(r, 25));
        input.write(k);
      }
    };
    const plain = () => screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const answer = sent(terminalRenderer({ input, output, color: false }));
    await type('\u007f', '\u007f', '\u007f', '\u007f', '\u007f', '\r'); // "hello" erased
    await type(' ', '\r'); // Fish: untick the default
    await type('\r'); // Size: keep "m"
    for (let i = 0; i < 100 && !plain().includes('Send this to'); i++)
      await new Promise((r) => setTimeout(r, 20));
    const box = plain().split('Review before sending').at(-1) ?? '';
    const shown: Record<string, string> = {};
    for (const m of box.matchAll(/│\s+(Note|Fish|Size): (.*?)\s+│/g))
      shown[m[1] as string] = m[2] as string;
    await type('s');
    const wire = await answer;
    expect(shown).toEqual({ ...EXPECTED_REVIEW, Size: 'm' });
    expect(wire).toEqual({ action: 'accept', content: { fish: [], size: 'm' } });
    expect(reviewOf(wire.content ?? {})).toEqual(shown);
  });

  it('scripted: null clears a field; the logged answer is the one sent', async () => {
    const lines: string[] = [];
    const wire = await sent(
      scriptedRenderer({
        answers: [{ action: 'accept', content: { note: null, fish: [] } }],
        log: (l) => lines.push(l),
      }),
    );
    const logged = lines.find((l) => l.includes('→ accept'))?.split('→ accept ')[1];
    expect(JSON.parse(logged ?? 'null')).toEqual(wire.content);
    expect(wire).toEqual({ action: 'accept', content: { fish: [], size: 'm' } });
    expect(reviewOf(wire.content ?? {})).toEqual(EXPECTED_REVIEW);
  });

  it('web element: the review list and the answer sent agree', async () => {
    const page = await (browser as Browser).newPage();
    await page.goto((site as { url: string }).url);
    await page.waitForFunction(() => customElements.get('elicit-form') !== undefined);
    await page.evaluate((requestedSchema) => {
      const w = window as unknown as { responses: unknown[] };
      w.responses = [];
      const element = document.createElement('elicit-form') as HTMLElement & {
        request: unknown;
      };
      element.addEventListener('elicit-response', (e) =>
        w.responses.push((e as CustomEvent).detail),
      );
      document.getElementById('root')?.append(element);
      element.request = { server: 'test-server', message: 'Check', requestedSchema };
    }, requestedSchema);
    await page.locator('elicit-form input[name=note]').fill('');
    await page.locator('elicit-form input[type=checkbox][value="fish-1"]').uncheck();
    await page.locator('elicit-form button', { hasText: 'Review' }).click();
    const shown = await page.evaluate(() => {
      const root = document.querySelector('elicit-form')?.shadowRoot ?? document;
      const out: Record<string, string> = {};
      const dts = [...root.querySelectorAll('dl dt')];
      for (const dt of dts) out[dt.textContent ?? ''] = dt.nextElementSibling?.textContent ?? '';
      return out;
    });
    await page.locator('elicit-form button', { hasText: 'Submit' }).click();
    const [response] = (await page.evaluate(
      () => (window as unknown as { responses: unknown[] }).responses,
    )) as FormResponse[];
    await page.close();
    const wire = await sent({
      ...scriptedRenderer(),
      form: async () => response as FormResponse,
    });
    expect(shown).toEqual({ ...EXPECTED_REVIEW, Size: 'm' });
    expect(wire).toEqual({ action: 'accept', content: { fish: [], size: 'm' } });
    expect(reviewOf(wire.content ?? {})).toEqual(shown);
  }, 60_000);
});
