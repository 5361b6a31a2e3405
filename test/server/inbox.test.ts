/**
 * The inbox fallback inside elicit/server: a plain SDK client that declares no elicitation calls
 * a tool that asks; with `createServer({ connect, inbox })` the form waits on the connect pages'
 * inbox, Chromium signs in and answers it with <elicit-form>, and the call completes with the
 * answer: held open on a 2025 session, ended with the link and answered on the retry at
 * 2026-07-28. The answer is checked as any answer, bound to the principal, and the page keeps
 * the connect pages' rules. Without the option the refusal stays.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectApp } from '../../src/connect/index.ts';
import { form, integer, text } from '../../src/schema/index.ts';
import { createServer, type ElicitServer, httpEntry } from '../../src/server/index.ts';
import { launchBrowser, passDevLogin } from '../support/browser.ts';
import {
  type ConnectPages,
  connectPages,
  clientWithoutElicitation as connectWithout,
  serverWithInbox,
  waitingQuestions,
  withOrder,
} from '../support/inbox.ts';
import { MODERN_META } from '../support/kit.ts';
import { resultText, rpc, TASKS, until } from '../support/tasks.ts';

let pages: ConnectPages;
let base: string;
let stack: ConnectApp;
let browser: Browser;
const waiting = waitingQuestions();
const waitingNow = waiting.seen;
const questionWaits = waiting.nth;

/** `order`, and `order_both`: two forms in one round (ask.all). */
function orderTool(app: ElicitServer): ElicitServer {
  return withOrder(app).tool('order_both', {}, async (_args, ask) => {
    const r = await ask.all({
      main: { form: form({ dish: text() }), message: 'Main course?' },
      side: { form: form({ dish: text() }), message: 'Side?' },
    });
    const dish = (x: { action: string; content?: { dish: string } }) =>
      x.action === 'accept' ? x.content?.dish : x.action;
    return `${dish(r.main)} with ${dish(r.side)}`;
  });
}

beforeAll(async () => {
  pages = await connectPages();
  ({ base, stack } = pages);
  const app = orderTool(serverWithInbox(pages, 'shop', { onWaiting: waiting.onWaiting })).tool(
    'order_later',
    { task: 'optional' },
    async (_args, ask) => {
      const r = await ask.form('what', form({ dish: text(), count: integer({ min: 1 }) }), {
        message: 'What would you like?',
      });
      return r.action === 'accept' ? `${r.content.count} × ${r.content.dish}` : r.action;
    },
  );
  pages.mount('/mcp', httpEntry(app));
  pages.mount('/plain', httpEntry(orderTool(createServer({ name: 'shop', version: '1' }))));
  // One question per principal, waiting 300 ms; in a store of its own (no page needed).
  pages.mount(
    '/tight',
    httpEntry(
      orderTool(
        serverWithInbox(pages, 'tight', { maxPerPrincipal: 1, waitMs: 300 }, pages.pagesApart()),
      ),
    ),
  );
  // A second server on the same connect pages (store and bus): another replica.
  pages.mount('/twin', httpEntry(orderTool(serverWithInbox(pages, 'shop'))));
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await pages?.close();
});

const clientWithoutElicitation = (era: 'legacy' | 'modern', path = '/mcp'): Promise<Client> =>
  connectWithout(new URL(path, base), era);

/** Chromium opens the inbox (signing in on the way) and answers the form shown there. */
async function answerInBrowser(
  url: string,
  dish: string,
  count: string,
  tool = 'order',
): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(url);
  await passDevLogin(page);
  // The newest question is the last one on the page (earlier ones may still wait above it).
  const last = 'section:last-of-type';
  await page.waitForSelector(`${last} >> elicit-form >> input[name=dish]`);
  expect(await page.textContent(`${last} >> h2`)).toBe(`shop · ${tool}`);
  await page.fill(`${last} >> elicit-form >> input[name=dish]`, dish);
  await page.fill(`${last} >> elicit-form >> input[name=count]`, count);
  await page.click(`${last} >> elicit-form >> [part=submit]`);
  await page.click(`${last} >> elicit-form >> [part=submit]`);
  await page.waitForSelector('text=Your answer was received.');
  return page;
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('createServer({ inbox }): forms a client cannot show wait on the connect pages', () => {
  it('2025 session: the call is held, Chromium answers in the inbox, the call completes', async () => {
    waitingNow.length = 0;
    const client = await clientWithoutElicitation('legacy');
    const call = client.callTool({ name: 'order', arguments: {} });
    const q = await questionWaits(1);
    expect(q).toMatchObject({ principal: 'local', tool: 'order', message: 'What would you like?' });
    expect(q.url).toBe(`${base}/elicit/inbox`);
    const page = await answerInBrowser(q.url, 'soup', '2');
    expect(textOf(await call)).toBe('2 × soup');
    await page.close();
    await client.close();
  }, 60_000);

  it('2026-07-28: the call ends with the link; answered in Chromium, the same call again completes', async () => {
    waitingNow.length = 0;
    const client = await clientWithoutElicitation('modern');
    const first = await client.callTool({ name: 'order', arguments: { table: 4 } });
    expect(first.isError).not.toBe(true);
    expect(textOf(first)).toContain(`${base}/elicit/inbox`);
    const meta = first._meta?.['elicit/inbox'] as { url: string; ids: string[] };
    expect(meta.url).toBe(`${base}/elicit/inbox`);
    expect(meta.ids).toHaveLength(1);
    // Asked again before answering: the same question, not a second one.
    await client.callTool({ name: 'order', arguments: { table: 4 } });
    expect(waitingNow).toHaveLength(1);
    const page = await answerInBrowser(meta.url, 'tea', '3');
    // Other arguments are another call: not answered by this page.
    const other = await client.callTool({ name: 'order', arguments: { table: 5 } });
    expect(textOf(other)).toContain('/elicit/inbox');
    const done = await client.callTool({ name: 'order', arguments: { table: 4 } });
    expect(textOf(done)).toBe('3 × tea');
    // The answer counted once: the next call asks again.
    const again = await client.callTool({ name: 'order', arguments: { table: 4 } });
    expect(textOf(again)).toContain('/elicit/inbox');
    await page.close();
    await client.close();
  }, 60_000);

  it('2026-07-28 with the tasks extension: the call is a task, waiting with the link in its status', async () => {
    waitingNow.length = 0;
    const mcp = new URL('/mcp', base);
    // A client that declares the tasks extension and no elicitation.
    const meta = {
      ...MODERN_META,
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
    };
    const made = await rpc(mcp, 'tools/call', { name: 'order_later', arguments: {} }, { meta });
    const taskId = String(made.result?.taskId);
    expect(made.result?.resultType).toBe('task');
    const q = await questionWaits(1);
    let task = await until(mcp, taskId, 'working');
    for (let i = 0; i < 100 && task.statusMessage === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      task = await until(mcp, taskId, 'working');
    }
    expect(String(task.statusMessage)).toContain(`${base}/elicit/inbox`);
    const page = await answerInBrowser(q.url, 'cake', '4', 'order_later');
    const done = await until(mcp, taskId, 'completed');
    expect(done.status).toBe('completed');
    expect(resultText(done)).toBe('4 × cake');
    await page.close();
  }, 60_000);

  it('2026-07-28: ask.all puts every form in the inbox at once; the retry on another replica takes both', async () => {
    waitingNow.length = 0;
    const client = await clientWithoutElicitation('modern');
    const first = await client.callTool({ name: 'order_both', arguments: {} });
    const meta = first._meta?.['elicit/inbox'] as { ids: string[] };
    expect(meta.ids).toHaveLength(2);
    expect(waitingNow.map((q) => q.message).sort()).toEqual(['Main course?', 'Side?']);
    const { cookie, csrf } = await signIn();
    for (const q of waitingNow) {
      const dish = q.message === 'Main course?' ? 'fish' : 'rice';
      const answered = await post(cookie, csrf, { id: q.id, action: 'accept', content: { dish } });
      expect(answered.status).toBe(204);
    }
    await client.close();
    // The same call, made to another server sharing the connect store, finds both answers.
    const twin = await clientWithoutElicitation('modern', '/twin');
    const done = await twin.callTool({ name: 'order_both', arguments: {} });
    expect(textOf(done)).toBe('fish with rice');
    await twin.close();
  }, 30_000);

  it('an answer that does not fit the form is asked again with the reasons, on the page', async () => {
    waitingNow.length = 0;
    const client = await clientWithoutElicitation('legacy');
    const call = client.callTool({ name: 'order', arguments: {} });
    const q = await questionWaits(1);
    const { cookie, csrf } = await signIn();
    const bad = await post(cookie, csrf, {
      id: q.id,
      action: 'accept',
      content: { dish: 'x', count: 0 },
    });
    expect(bad.status).toBe(204);
    const again = await questionWaits(2);
    expect(again.message).toContain('The previous answer could not be used');
    expect(again.message).toContain('- How many:');
    expect(
      (
        await post(cookie, csrf, {
          id: again.id,
          action: 'accept',
          content: { dish: 'pie', count: 1 },
        })
      ).status,
    ).toBe(204);
    expect(textOf(await call)).toBe('1 × pie');
    await client.close();
  }, 30_000);

  it("the page's rules: sign-in, Origin and CSRF for answers, CSP, another principal's question is unknown", async () => {
    waitingNow.length = 0;
    const unsigned = await fetch(`${base}/elicit/inbox`, { redirect: 'manual' });
    expect(unsigned.status).toBe(303);
    expect(unsigned.headers.get('location')).toBe('/elicit/login?next=%2Felicit%2Finbox');
    expect((await fetch(`${base}/elicit/inbox/questions`)).status).toBe(401);
    const client = await clientWithoutElicitation('legacy');
    const call = client.callTool({ name: 'order', arguments: {} });
    const q = await questionWaits(1);
    const { cookie, csrf, page } = await signIn();
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const listed = (await (
      await fetch(`${base}/elicit/inbox/questions`, { headers: { cookie } })
    ).json()) as { id: string }[];
    expect(listed.map((x) => x.id)).toContain(q.id);
    const answer = { id: q.id, action: 'decline' };
    expect((await post(cookie, '', answer)).status).toBe(403);
    expect((await post(cookie, csrf, answer, 'http://evil.example')).status).toBe(403);
    // Someone else signed in sees nothing and cannot answer.
    const other = await signIn('mallory');
    const theirs = (await (
      await fetch(`${base}/elicit/inbox/questions`, { headers: { cookie: other.cookie } })
    ).json()) as unknown[];
    expect(theirs).toEqual([]);
    expect((await post(other.cookie, other.csrf, answer)).status).toBe(404);
    expect((await post(cookie, csrf, answer)).status).toBe(204);
    expect(textOf(await call)).toBe('decline');
    // Answered once: the same answer again is refused.
    expect((await post(cookie, csrf, answer)).status).toBe(404);
    await client.close();
  }, 30_000);

  it('bounded: one waiting question per principal here, and an unanswered one expires plainly', async () => {
    const client = await clientWithoutElicitation('legacy', '/tight');
    const held = client.callTool({ name: 'order', arguments: {} });
    await new Promise((r) => setTimeout(r, 100));
    const full = await client.callTool({ name: 'order', arguments: {} });
    expect(full.isError).toBe(true);
    expect(full._meta?.['elicit/error']).toBe('ELICIT_INBOX_FULL');
    const expired = await held;
    expect(expired.isError).toBe(true);
    expect(expired._meta?.['elicit/error']).toBe('ELICIT_INBOX_EXPIRED');
    expect(textOf(expired)).toContain(`${base}/elicit/inbox`);
    await client.close();
  }, 30_000);

  it('without the option nothing changes: -32021 at 2026-07-28, the refusal result on 2025', async () => {
    const legacy = await clientWithoutElicitation('legacy', '/plain');
    const refused = await legacy.callTool({ name: 'order', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['elicit/error']).toBe('ELICIT_CLIENT_UNSUPPORTED');
    await legacy.close();
    const modern = await clientWithoutElicitation('modern', '/plain');
    await expect(modern.callTool({ name: 'order', arguments: {} })).rejects.toMatchObject({
      code: -32021,
    });
    await modern.close();
  });
});

/** Signs in through the development login as `user` (default the MCP calls' `local`). */
async function signIn(user = 'local'): Promise<{ cookie: string; csrf: string; page: Response }> {
  const headers = { origin: base, 'sec-fetch-site': 'same-origin' };
  const login = async () => {
    if (user === 'local')
      return fetch(`${base}/elicit/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'next=%2Felicit%2Finbox',
      });
    // Another principal: a session made directly in the store, as another login would.
    return undefined;
  };
  let cookie: string;
  const res = await login();
  if (res === undefined) {
    const { Sessions } = await import('../../src/connect/sessions.ts');
    const made = await new Sessions(stack.store, new URL(base)).create(user);
    cookie = made.cookie.split(';')[0] as string;
  } else cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const page = await fetch(`${base}/elicit/inbox`, { headers: { cookie } });
  const csrf = /name="csrf" content="([^"]+)"/.exec(await page.clone().text())?.[1] ?? '';
  return { cookie, csrf, page };
}

function post(cookie: string, csrf: string, body: unknown, origin = base): Promise<Response> {
  return fetch(`${base}/elicit/inbox/answer`, {
    method: 'POST',
    headers: {
      cookie,
      origin,
      'sec-fetch-site': origin === base ? 'same-origin' : 'cross-site',
      'content-type': 'application/json',
      'x-elicit-csrf': csrf,
    },
    body: JSON.stringify(body),
  });
}
