/**
 * The shared form cases through <elicit-form> in a real Chromium: fields filled and clicked as a
 * person would, an invalid entry sent to review first (what was entered must still be there
 * after the form re-renders with its errors), then Review and Submit.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { CompiledSchema, Field } from '../../src/schema/index.ts';
import { launchBrowser } from '../support/browser.ts';
import { startTestPage } from '../support/web-page.ts';
import { type Case, rendererSuite, type Step } from './cases.ts';

let browser: Browser;
let site: Awaited<ReturnType<typeof startTestPage>>;
beforeAll(async () => {
  site = await startTestPage();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const q = (value: string) => JSON.stringify(value);

async function open(schema: unknown): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => customElements.get('elicit-form') !== undefined);
  // As JSON: Playwright's own argument encoding drops an own `__proto__` key.
  await page.evaluate((json) => {
    const requestedSchema = JSON.parse(json);
    const w = window as unknown as { answers: string[] };
    w.answers = [];
    const element = document.createElement('elicit-form') as HTMLElement & { request: unknown };
    // JSON keeps an own `__proto__` key as it is.
    element.addEventListener('elicit-response', (e) =>
      w.answers.push(JSON.stringify((e as CustomEvent).detail)),
    );
    document.getElementById('root')?.append(element);
    element.request = { server: 'test-server', message: 'Please answer', requestedSchema };
  }, JSON.stringify(schema));
  return page;
}

/** Error texts on screen now. */
const errors = (page: Page) =>
  page
    .locator('elicit-form [part=error]:not([hidden])')
    .allTextContents()
    .then((t) => t.join('\n'));

async function review(page: Page): Promise<string> {
  await page.click('elicit-form [part=submit]');
  return errors(page);
}

async function setTicks(
  field: Locator,
  f: Field & { kind: 'multiselect' },
  want: readonly string[],
) {
  for (const o of f.options)
    await field.locator(`input[value=${q(o.value)}]`).setChecked(want.includes(o.value));
}

const checked = (field: Locator) =>
  field
    .locator('input[type=checkbox]:checked')
    .evaluateAll((xs) => xs.map((x) => (x as HTMLInputElement).value));

async function fill(page: Page, f: Field, step: Step, shown: string[]): Promise<void> {
  const field = page.locator(`elicit-form [data-field=${q(f.name)}]`);
  if ('keep' in step) return;
  if ((f.kind === 'text' || f.kind === 'number') && 'type' in step) {
    const input = field.locator('input');
    if (step.first !== undefined) {
      await input.fill(step.first);
      await input.dispatchEvent('change');
      shown.push(await review(page));
      expect(await input.inputValue()).toBe(step.first);
    }
    await input.fill(step.type);
    await input.dispatchEvent('change');
    return;
  }
  if (f.kind === 'multiselect' && 'tick' in step) {
    if (step.first !== undefined) {
      await setTicks(field, f, step.first);
      shown.push(await review(page));
      expect(await checked(field)).toEqual(step.first);
    }
    await setTicks(field, f, step.tick);
    return;
  }
  if (f.kind === 'boolean' && 'yes' in step) {
    if (f.required) await field.locator('input').setChecked(step.yes === true);
    else
      await field
        .locator(`input[value=${q(step.yes === null ? '' : step.yes ? 'yes' : 'no')}]`)
        .check();
    return;
  }
  if (f.kind === 'select' && 'pick' in step) {
    const select = field.locator('select');
    if ((await select.count()) > 0) await select.selectOption(step.pick ?? '');
    else await field.locator(`input[value=${q(step.pick ?? '')}]`).check();
    return;
  }
  throw new Error(`step ${JSON.stringify(step)} does not fit a ${f.kind} field`);
}

rendererSuite(
  '<elicit-form>',
  {
    async run(c: Case, schema: CompiledSchema) {
      const page = await open(c.schema);
      try {
        const shown: string[] = [];
        for (const [i, f] of schema.fields.entries())
          await fill(page, f, c.steps[i] as Step, shown);
        shown.push(await review(page));
        await page.waitForSelector('elicit-form dl');
        await page.click('elicit-form [part=submit]');
        const [answer] = await page.evaluate(
          () => (window as unknown as { answers: string[] }).answers,
        );
        const detail = JSON.parse(answer ?? '{}') as { action: string; content?: unknown };
        // Re-encoded from the page's JSON text, so an own `__proto__` key stays.
        const content = /"content":(\{.*\})\}$/.exec(answer ?? '')?.[1];
        return { action: detail.action, content, shown: shown.join('\n') };
      } finally {
        await page.close();
      }
    },
  },
  60_000,
);
