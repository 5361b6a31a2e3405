/**
 * The browser host follows tasks (2026-07-28): the page's SDK client against the tasks fixture
 * on the plain SDK, in real Chromium. A running task's status shows in its row, Cancel sends
 * tasks/cancel, the task's question is answered through <elicit-form>, a failed task is said.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_CSP, HOST_CSS, HOST_PAGE } from '../../src/web/host/page.ts';
import { launchBrowser } from '../support/browser.ts';
import { startTaskServer, type TaskServer } from '../support/task-server.ts';
import { bundle } from '../support/web-page.ts';

let browser: Browser;
let server: TaskServer;
beforeAll(async () => {
  const script = await bundle('src/web/host/main.ts');
  const headers = (type: string) => ({ 'content-type': type, 'content-security-policy': HOST_CSP });
  server = await startTaskServer({
    assets: (path) =>
      path === '/'
        ? new Response(HOST_PAGE, { headers: headers('text/html; charset=utf-8') })
        : path === '/host.css'
          ? new Response(HOST_CSS, { headers: headers('text/css') })
          : path === '/host.js'
            ? new Response(script, { headers: headers('text/javascript') })
            : undefined,
  });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function connected(): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(new URL('/', server.url).href);
  await page.selectOption('#era', 'modern');
  await page.click('#connect');
  await page.waitForSelector('button[data-tool=long]');
  return { page, close: () => context.close() };
}

const calls = (method: string, taskId: string) =>
  server.log.filter((e) => e.method === method && e.params.taskId === taskId);

describe('the browser host follows tasks', () => {
  it("shows the task's status in its row; Cancel sends tasks/cancel", async () => {
    const { page, close } = await connected();
    await page.click('button[data-tool=long]');
    const row = '.call[data-tool=long]';
    await page.waitForSelector(`${row}[data-status=working]`);
    await expect
      .poll(() => page.textContent(`${row} .detail`))
      .toMatch(/^Working: step \d+ of 40$/);
    const taskId = (await page.getAttribute(row, 'data-task')) as string;
    expect(taskId).toMatch(/^task-\d+-long$/);
    await page.click(`${row} button.cancel`);
    await page.waitForSelector('#log p:has-text("long: cancelled.")');
    await expect.poll(() => calls('tasks/cancel', taskId).length).toBe(1);
    expect(server.tasks.get(taskId)?.status).toBe('cancelled');
    await close();
  }, 90_000);

  it("answers the task's question through <elicit-form>", async () => {
    const { page, close } = await connected();
    await page.click('button[data-tool=confirm]');
    await page.waitForSelector('elicit-form >> text=Delete the file?');
    await page.check('elicit-form >> input[name=confirm]');
    await page.click('elicit-form >> [part=submit]');
    await page.click('elicit-form >> [part=submit]');
    await page.waitForSelector('#log .result');
    expect(await page.textContent('#log .result')).toBe(
      '◀ answer: {"action":"accept","content":{"confirm":true}}',
    );
    await close();
  }, 90_000);

  it('a failed task is reported with its error', async () => {
    const { page, close } = await connected();
    await page.click('button[data-tool=failing]');
    await page.waitForSelector('#log .error');
    expect(await page.textContent('#log .error')).toContain(
      'The task failed on the server: disk full⟨ESC[31m⟩ (-32603).',
    );
    await close();
  }, 90_000);
});
