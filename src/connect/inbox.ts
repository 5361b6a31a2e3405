/**
 * The inbox of the connect pages: questions a server's client could not be asked
 * (`createServer({ inbox })`), each a record in the connect store bound to the principal whose
 * call asked, shown on one page to that principal once signed in, and answered there.
 *
 *   GET  /elicit/inbox            the page: the waiting questions, a form rendered by <elicit-form>,
 *                                 a URL page by <elicit-url-consent> with its elicit/url analysis
 *   GET  /elicit/inbox/questions  the signed-in principal's waiting questions (JSON)
 *   POST /elicit/inbox/answer     an answer (a URL page opened counts as its accept): same origin,
 *                                 the session's CSRF token in a header
 *   GET  /elicit/inbox.js         the page's script (src/web/inbox-page.ts, bundled)
 *
 * The same rules as every connect page: the `__Host-` session cookie, Fetch Metadata and Origin,
 * the CSRF token, a body read within its limit, a CSP that allows only this origin's script, no
 * framing. Another principal's question is the same 404 as an unknown one. The answer is stored
 * as given and announced on the completion bus; the server checks it against the form (its
 * schema, refine) as any answer, and asks again with the reasons when it does not fit.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { readTextWithin } from '../kernel/body.ts';
import { inboxPageScript } from '../kernel/inbox-script.ts';
import { joinKey } from '../kernel/keys.ts';
import { pooledRandom } from '../kernel/random.ts';
import type { Json, Store } from '../kernel/store.ts';
import type {
  InboxAnswer,
  InboxCaps,
  InboxPort,
  InboxRecord,
  NewInboxRecord,
} from '../server/url-port.ts';
import { analyzeUrl } from '../url/index.ts';
import type { PagesContext } from './context.ts';
import { failed, render } from './pages.ts';
import { whoOf } from './sessions.ts';

export type { InboxAnswer, InboxRecord } from '../server/url-port.ts';

const key = (id: string) => `inbox:${id}`;
const byPrincipal = (principal: string) => `inbox-principal:${principal}`;
const byCall = (principal: string, call: string) => `inbox-call:${joinKey(principal, call)}`;
const ALL = 'inbox-all';
const ID = /^[A-Za-z0-9_-]{22}$/;
/** Records outlive their question by this much, so a late answer reads "expired", not "unknown". */
const GRACE_MS = 10 * 60_000;

/** Inbox records in the connect store (any driver; Redis or PostgreSQL for replicas). */
export class InboxRecords implements Omit<InboxPort, 'url'> {
  readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  async create(
    fields: NewInboxRecord,
    ttlMs: number,
    caps: InboxCaps,
  ): Promise<InboxRecord | { readonly full: 'principal' | 'total' }> {
    // The total is read, then the principal's cap is kept atomically with the create: a burst
    // of several principals may pass the total by a few, one principal never passes its own.
    if ((await this.store.countByTag(ALL)) >= caps.total) return { full: 'total' };
    const now = Date.now();
    const record: InboxRecord = {
      ...fields,
      id: Buffer.from(pooledRandom(16)).toString('base64url'),
      status: 'pending',
      answer: undefined,
      createdAt: now,
      expiresAt: now + ttlMs,
    };
    const made = await this.store.createCapped(
      key(record.id),
      stored(record),
      {
        ttlMs: ttlMs + GRACE_MS,
        tags: [byPrincipal(record.principal), byCall(record.principal, record.call), ALL],
      },
      { tag: byPrincipal(record.principal), max: caps.perPrincipal },
    );
    if (made === 'full') return { full: 'principal' };
    return record;
  }

  async get(id: string): Promise<InboxRecord | undefined> {
    if (!ID.test(id)) return undefined;
    const found = await this.store.get<never>(key(id));
    if (found === undefined) return undefined;
    const record = read(found.value);
    return record.status === 'pending' && record.expiresAt <= Date.now()
      ? { ...record, status: 'expired' }
      : record;
  }

  async find(principal: string, call: string): Promise<InboxRecord | undefined> {
    let newest: InboxRecord | undefined;
    for (const k of await this.store.findByTag(byCall(principal, call))) {
      const r = await this.get(k.slice('inbox:'.length));
      // The tag is exact; the check is for a record written by something else under the key.
      if (r === undefined || r.principal !== principal || r.call !== call) continue;
      if (newest === undefined || r.createdAt > newest.createdAt) newest = r;
    }
    return newest;
  }

  /** The principal's questions still waiting, oldest first. */
  async waiting(principal: string): Promise<InboxRecord[]> {
    const out: InboxRecord[] = [];
    for (const k of await this.store.findByTag(byPrincipal(principal))) {
      const r = await this.get(k.slice('inbox:'.length));
      if (r?.status === 'pending' && r.principal === principal) out.push(r);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Records `answer` on a waiting question of `principal`; false if there is none, or when the
   * answer is for the other kind of question (`mode`: a form's content, a URL page opened).
   */
  async answer(
    id: string,
    principal: string,
    answer: InboxAnswer,
    mode?: 'form' | 'url',
  ): Promise<boolean> {
    if (!ID.test(id)) return false;
    for (let tries = 0; tries < 5; tries++) {
      const found = await this.store.get<never>(key(id));
      if (found === undefined) return false;
      const record = read(found.value);
      if (record.principal !== principal) return false;
      if (record.status !== 'pending' || record.expiresAt <= Date.now()) return false;
      if (mode !== undefined && mode !== (record.url === undefined ? 'form' : 'url')) return false;
      const next: InboxRecord = { ...record, status: 'answered', answer };
      if (await this.store.update(key(id), found.version, stored(next))) return true;
    }
    return false;
  }

  async remove(id: string): Promise<void> {
    if (ID.test(id)) await this.store.delete(key(id));
  }
}

const stored = (r: InboxRecord): Json =>
  JSON.parse(JSON.stringify({ ...r, answer: r.answer ?? null })) as Json;
const read = (v: unknown): InboxRecord => {
  const r = v as InboxRecord & { answer: InboxAnswer | null };
  return { ...r, answer: r.answer ?? undefined };
};

const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const JSON_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The answer a page sent (`mode`: what it answers, a form's content or a URL page opened, which
 * counts as its accept), or undefined when it is not one.
 */
function answerOf(
  body: Record<string, unknown>,
): { readonly answer: InboxAnswer; readonly mode?: 'form' | 'url' } | undefined {
  if (body.action === 'decline' || body.action === 'cancel')
    return { answer: { action: body.action } };
  if (body.action === 'accept' && isObject(body.content))
    return { answer: { action: 'accept', content: body.content }, mode: 'form' };
  if (body.action === 'opened') return { answer: { action: 'opened' }, mode: 'url' };
  return undefined;
}

/** Mounts the inbox routes; before `/elicit/:id`, whose pattern `/elicit/inbox` also matches. */
export function mountInboxRoutes(app: Hono, ctx: PagesContext, inbox: InboxRecords): void {
  const { sessions, options } = ctx;
  // Reads need the session and no other site asking: a cross-site fetch is refused outright.
  const crossSite = (req: Request) => {
    const site = req.headers.get('sec-fetch-site');
    return site !== null && site !== 'same-origin' && site !== 'none';
  };

  app.get('/elicit/inbox.js', async () => {
    return new Response(await inboxPageScript(), {
      headers: {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      },
    });
  });

  app.get('/elicit/inbox', async (c) => {
    const session = await sessions.current(c.req.header('cookie'));
    if (session === undefined)
      return new Response(null, {
        status: 303,
        headers: { location: options.login.start('/elicit/inbox'), 'cache-control': 'no-store' },
      });
    return render({
      title: 'Questions waiting',
      who: whoOf(session),
      script: { src: '/elicit/inbox.js', meta: { csrf: session.csrf, inbox: '/elicit/inbox' } },
      body: '<h1>Questions waiting for you</h1><p id="empty" class="muted">Nothing is waiting. Questions your assistant could not show you appear here.</p><div id="questions"></div>',
    });
  });

  app.get('/elicit/inbox/questions', async (c) => {
    const session = await sessions.current(c.req.header('cookie'));
    if (session === undefined || crossSite(c.req.raw))
      return new Response('[]', { status: 401, headers: JSON_HEADERS });
    const questions = (await inbox.waiting(session.principal)).map((r) => ({
      id: r.id,
      server: r.server,
      tool: r.tool,
      message: r.message,
      // A URL page is shown with its analysis (elicit/url), as a client shows one before opening.
      ...(r.url === undefined
        ? { mode: 'form', requestedSchema: r.requestedSchema }
        : { mode: 'url', analysis: analyzeUrl(r.url) }),
    }));
    return new Response(JSON.stringify(questions), { headers: JSON_HEADERS });
  });

  app.post('/elicit/inbox/answer', async (c) => {
    const req = c.req.raw;
    const session = await sessions.current(c.req.header('cookie'));
    // Origin first, then the session and its CSRF token: nothing is read for another site.
    if (
      !ctx.sameOrigin(req) ||
      session === undefined ||
      !same(req.headers.get('x-elicit-csrf') ?? '', session.csrf)
    ) {
      ctx.log({ type: 'csrf_refused', id: 'inbox' });
      return failed('This answer was not sent from the inbox page.', whoOf(session), 403);
    }
    const text = await readTextWithin(req, ctx.limits.bodyBytes);
    if (text === undefined)
      return failed(
        `This answer is larger than ${ctx.limits.bodyBytes} bytes; nothing was read.`,
        whoOf(session),
        413,
      );
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return failed('This answer is not JSON.', whoOf(session), 400);
    }
    const given = isObject(body) ? answerOf(body) : undefined;
    const id = isObject(body) && typeof body.id === 'string' ? body.id : '';
    if (given === undefined) return failed('This is not an answer.', whoOf(session), 400);
    // Unknown, answered, expired and another principal's question: one answer, nothing stored.
    if (!(await inbox.answer(id, session.principal, given.answer, given.mode))) {
      ctx.log({ type: 'unknown_link', id: id.slice(0, 40) });
      return failed('This question is not waiting any more.', whoOf(session), 404);
    }
    ctx.log({ type: 'completed', id, purpose: 'inbox' });
    // Stored first: a bus that fails now is covered by the server's own poll of the record.
    await options.bus.publish({ id, status: 'complete' }).catch((error: unknown) => {
      ctx.log({ type: 'store_failed', what: 'completion bus', error });
    });
    return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
  });
}
