/**
 * The web inbox: where the host cannot ask, the person still can. Questions wait here and are
 * shown on a loopback page with `<elicit-form>` (a URL page with `<elicit-url-consent>`, given
 * the gateway's own elicit/url analysis, so the person opens or declines it here).
 *
 * Every question belongs to the principal whose call asked it, and the page is bound to a
 * principal too: a one-time link (minted for one principal, a single-use token kept in the store
 * under its hash) becomes an HttpOnly, SameSite=Strict session cookie, kept in the store under its
 * hash with that principal and a CSRF token, so the page lists and answers that principal's
 * questions only. Answers need the cookie, the CSRF token in a header and the page's own Origin;
 * the page is served with a CSP that allows only its own script, and the Host header is checked
 * against DNS rebinding.
 *
 * With `oidc`, the page has a sign-in of its own beside the links (inbox-login.ts): the person
 * signs in with the OpenID provider whose access tokens their host presents, as the principal
 * the gateway gives their calls. Whatever signs a browser in, a browser signed in as someone
 * else is never switched silently: it gets a page naming both, and may sign out first.
 *
 * Replicas: questions, links and sessions live in the store, so any replica sharing it shows and
 * answers any of them. The answer is written to the question's record (compare-and-set) and a
 * wake-up goes out on the message bus; the replica holding the call reads the record and the call
 * ends with the answer (it also re-reads its questions every `pollMs`, for wake-ups missed during
 * an outage). Each replica keeps a lease in the store while it runs; a question whose replica's
 * lease lapsed (the process crashed or was killed) is shown and refused with
 * ELICIT_GATEWAY_HOLDER_LOST, never left waiting.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ElicitError } from '../errors.ts';
import { type MessageBus, memoryBus } from '../kernel/bus.ts';
import { ELICIT_GATEWAY_HOLDER_LOST, ELICIT_GATEWAY_INBOX_CONFIG } from '../kernel/error-codes.ts';
import type { InboxAnswer } from '../kernel/inbox.ts';
import { inboxPageScript } from '../kernel/inbox-script.ts';
import { MAX_CALLBACK_CHARS } from '../kernel/oidc.ts';
import type { Json, Store } from '../kernel/store.ts';
import { isLoopbackHost } from '../server/internal.ts';
import { memoryStore } from '../store/internal.ts';
import type { UrlAnalysis } from '../url/index.ts';
import { type InboxOidcOptions, InboxSignIn, readCookie } from './inbox-login.ts';
import { linkNeededPage, type Reply, refusedPage, signInPage, switchPage } from './inbox-pages.ts';

export interface InboxOptions {
  /**
   * Address to listen on; default 127.0.0.1, port 0 (any free port). Beyond loopback only with
   * an https `publicUrl` (the session cookie must not cross a network in the clear).
   */
  readonly host?: string;
  readonly port?: number;
  /**
   * The address people open, when it is not the one listened on: a reverse proxy or a load
   * balancer in front of the replicas (`https://inbox.example.com`; its origin is used). Links
   * are made on it, and the Host and Origin checks expect it; on https the session cookie is
   * `__Host-elicit-inbox` (Secure). Plain http only for a loopback name.
   */
  readonly publicUrl?: string;
  /**
   * Questions waiting at once, per principal (across every replica sharing the store) and in this
   * process; past it a question is cancelled. Default 100.
   */
  readonly maxWaiting?: number;
  /** How long a question waits for the person; default 10 minutes, then it is cancelled. */
  readonly waitMs?: number;
  /**
   * Called when a question starts waiting (the CLI's `--notify`), with the principal it belongs
   * to: whom to tell, and for whom to mint a link (`link(principal)`).
   */
  readonly onWaiting?: (question: InboxQuestion, principal: string) => void;
  /**
   * Where questions, one-time links and sessions live. Default: this process's memory. Replicas
   * share one (Redis or PostgreSQL) and one `bus`.
   */
  readonly store?: Store;
  /** Wake-ups between replicas when a question is answered. Default: this process only. */
  readonly bus?: MessageBus<Json>;
  /**
   * How long this process's lease in the store lasts (renewed every third of it): a replica
   * silent this long is taken for gone and its questions fail with ELICIT_GATEWAY_HOLDER_LOST.
   * Default 10 s.
   */
  readonly leaseMs?: number;
  /** How often a waiting question's record is read again (missed wake-ups); default 2 s. */
  readonly pollMs?: number;
  /** How long a one-time link can be used; default 7 days. */
  readonly linkTtlMs?: number;
  /** How long a browser stays signed in; default 12 hours. */
  readonly sessionTtlMs?: number;
  /** Browsers signed in at once per principal; default 16 (past it, one of them is signed out). */
  readonly maxSessions?: number;
  /**
   * Sign-in with an OpenID provider, beside the one-time links: a person signs in as
   * `["<issuer>","<subject>"]`, the principal the gateway gives calls whose verified access
   * token has that issuer and subject, and sees their own questions. Register
   * `<page origin>/inbox/login/callback` as the client's redirect URI.
   */
  readonly oidc?: InboxOidcOptions;
}

/** A question as asked of the inbox: a form (its schema) or a URL page (its analysis). */
export type InboxAsk = {
  readonly server: string;
  readonly tool: string;
  readonly message: string;
} & (
  | { readonly mode: 'form'; readonly requestedSchema: unknown }
  | { readonly mode: 'url'; readonly analysis: UrlAnalysis }
);

/**
 * What the page shows of a question: waiting, or `failed` (with its code and message) when the
 * process holding its call is gone.
 */
export type InboxQuestion = InboxAsk & {
  readonly id: string;
  readonly failed?: { readonly code: string; readonly message: string };
};

/** What the person did on the page (one declaration with the connect pages' inbox). */
export type { InboxAnswer } from '../kernel/inbox.ts';

/** A question of the inbox can no longer be answered (its `code` says why). */
export class InboxError extends ElicitError {}

/** The inbox's options cannot be used as given (the message says which and why). */
function configError(message: string): InboxError {
  return new InboxError(ELICIT_GATEWAY_INBOX_CONFIG, message);
}

/** The question's call was held by a process that stopped. */
function holderLost(): InboxError {
  return new InboxError(
    ELICIT_GATEWAY_HOLDER_LOST,
    'The gateway process that held this call stopped before it was answered, so the call is gone. Make the call again from your assistant.',
  );
}

/** A browser session in the store: its principal, the name shown for it, its CSRF token. */
type Session = { p: string; n?: string; csrf: string };
/** The session a request's cookie names (its id is the cookie's value), if any. */
type Current = (Session & { id: string }) | undefined;

/** A question's record in the store. */
type Record_ = {
  /** The principal it belongs to. */
  p: string;
  /** The replica holding the call. */
  r: string;
  q: Json;
  s: 'waiting' | 'answered' | 'failed';
  a?: Json;
};

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** The sign-in and refusal pages: no script at all, and a form only to the inbox itself. */
const PAGE_CSP =
  "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
/** Cookies, links and done tokens are 32 random bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const MAX_BODY = 256 * 1024;
/** How long a failed question stays listed so the person reads why. */
const FAILED_TTL_MS = 10 * 60_000;

const token = () => randomBytes(32).toString('base64url');
const hash = (label: string, value: string) =>
  createHash('sha256').update(`${label}\u0000${value}`).digest('base64url');
const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const key = {
  question: (id: string) => `inbox:q:${id}`,
  link: (t: string) => `inbox:l:${hash('elicit-inbox-link', t)}`,
  session: (c: string) => `inbox:s:${hash('elicit-inbox-session', c)}`,
  lease: (replica: string) => `inbox:r:${replica}`,
  /** Tags are bounded and printable whatever the principal is: its hash. */
  questions: (principal: string) => `inbox:qp:${hash('elicit-inbox-principal', principal)}`,
  sessions: (principal: string) => `inbox:sp:${hash('elicit-inbox-principal', principal)}`,
};

const PAGE = (csrf: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf" content="${csrf}"><meta name="inbox" content="/inbox"><title>Questions waiting — elicit</title>
<link rel="stylesheet" href="/inbox.css"></head><body>
<main><h1>Questions waiting for you</h1>
<p id="empty">Nothing is waiting. Questions your assistant's host cannot show appear here.</p>
<div id="questions"></div></main>
<script type="module" src="/inbox.js"></script></body></html>`;

// Notes in set greys, not GrayText: GrayText on a light Canvas is under 4.5:1 (WCAG 1.4.3).
const CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:CanvasText;background:Canvas}
main{max-width:40rem;margin:0 auto;padding:1rem}h1{font-size:1.4rem;line-height:1.3}section{margin:1.5rem 0}
h2{font-size:1rem;margin:0 0 .5rem}:root{color-scheme:light dark}
.done{color:#555}@media (prefers-color-scheme:dark){.done{color:#bbb}}
a.button{display:inline-block;padding:.5rem 1.1rem;border-radius:.4rem;background:#0b57d0;color:#fff;font-weight:600;text-decoration:none}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
@media (prefers-color-scheme:dark){a.button{background:#8ab4f8;color:#10131a}:focus-visible{outline-color:#8ab4f8}}`;

interface Waiting {
  readonly principal: string;
  readonly resolve: (answer: InboxAnswer) => void;
}

/** The origin of a `publicUrl`: https, or http for a loopback name. */
function publicOrigin(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (
    url === undefined ||
    !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))
  )
    throw configError(
      `The inbox's publicUrl must be an https address (or http on a loopback name); got ${JSON.stringify(text.slice(0, 100))}`,
    );
  return new URL('/inbox', url.origin);
}

/** What a posted answer may be, for a question of either mode. */
function readAnswer(body: unknown, mode: 'form' | 'url'): InboxAnswer | undefined {
  const a = body as { action?: unknown; content?: unknown } | null;
  if (typeof a !== 'object' || a === null) return undefined;
  if (mode === 'url' && a.action === 'opened') return { action: 'opened' };
  if (
    mode === 'form' &&
    a.action === 'accept' &&
    typeof a.content === 'object' &&
    a.content !== null &&
    !Array.isArray(a.content)
  )
    return { action: 'accept', content: a.content as Record<string, unknown> };
  if (a.action === 'decline' || a.action === 'cancel') return { action: a.action };
  return undefined;
}

/** The inbox of one gateway process (and, through a shared store, of its replicas). */
export class Inbox {
  /** The page's address as people open it (`publicUrl`'s origin, else the one listened on). */
  readonly url: URL;
  /** The address this process listens on. */
  readonly address: URL;
  /** This process among the replicas (its lease's name). */
  readonly replica = randomBytes(12).toString('base64url');
  readonly #server: Server;
  readonly #options: InboxOptions;
  readonly #store: Store;
  readonly #bus: MessageBus<Json>;
  readonly #waiting = new Map<string, Waiting>();
  readonly #unsubscribe: () => void;
  readonly #lease: NodeJS.Timeout;
  /** `__Host-` and Secure where the page is https. */
  readonly #cookie: string;
  readonly #signIn: InboxSignIn | undefined;
  #poll: NodeJS.Timeout | undefined;

  private constructor(server: Server, address: URL, url: URL, options: InboxOptions, store: Store) {
    this.#signIn =
      options.oidc === undefined ? undefined : new InboxSignIn(options.oidc, store, url);
    this.#server = server;
    this.address = address;
    this.url = url;
    this.#cookie = url.protocol === 'https:' ? '__Host-elicit-inbox' : 'elicit_inbox';
    this.#options = options;
    this.#store = store;
    this.#bus = options.bus ?? memoryBus();
    this.#unsubscribe = this.#bus.subscribe((m) => {
      const id = (m as { inbox?: unknown } | null)?.inbox;
      if (typeof id === 'string' && this.#waiting.has(id)) void this.#check(id).catch(() => {});
    });
    const leaseMs = this.#leaseMs;
    this.#lease = setInterval(() => void this.#renew().catch(() => {}), leaseMs / 3);
    this.#lease.unref();
  }

  /** Starts the inbox (and this process's lease in the store). */
  static async start(options: InboxOptions = {}): Promise<Inbox> {
    const host = options.host ?? '127.0.0.1';
    const pub = options.publicUrl === undefined ? undefined : publicOrigin(options.publicUrl);
    if (!isLoopbackHost(host) && pub?.protocol !== 'https:')
      throw configError(
        `The inbox would listen beyond loopback (${host}) without an https publicUrl, so its session cookie would cross the network in the clear. Listen on loopback behind an https proxy and pass publicUrl: 'https://…' (elicit gateway --inbox-url).`,
      );
    const store = options.store ?? memoryStore();
    let inbox: Inbox | undefined;
    const server = createServer((req, res) => {
      (inbox as Inbox).handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const address = new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}/inbox`);
    try {
      inbox = new Inbox(server, address, pub ?? address, options, store);
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    }
    try {
      await inbox.#renew();
    } catch (error) {
      await inbox.close();
      throw error;
    }
    return inbox;
  }

  get #leaseMs(): number {
    return this.#options.leaseMs ?? 10_000;
  }

  /** Keeps this process's lease alive: while it lasts, its questions can be answered. */
  async #renew(): Promise<void> {
    const k = key.lease(this.replica);
    const ttlMs = this.#leaseMs;
    const held = await this.#store.get(k);
    if (held === undefined || !(await this.#store.update(k, held.version, 1, { ttlMs })))
      await this.#store.create(k, 1, { ttlMs });
  }

  /**
   * A link that signs one browser in, once, as `principal` (default `local`: whoever runs a
   * gateway over stdio or loopback). Any replica sharing the store honours it.
   */
  async link(principal = 'local'): Promise<string> {
    const t = token();
    await this.#store.create(key.link(t), principal, {
      ttlMs: this.#options.linkTtlMs ?? 7 * 24 * 60 * 60_000,
    });
    return `${this.url.href}?t=${t}`;
  }

  /** Questions waiting in this process now. */
  get size(): number {
    return this.#waiting.size;
  }

  /**
   * Waits for `principal` to answer `question` (cancel on timeout, abort or a full inbox). A
   * store that fails throws its StoreError: the question was not shown.
   */
  async ask(
    question: InboxAsk,
    options: { readonly principal: string; readonly signal?: AbortSignal | undefined },
  ): Promise<InboxAnswer> {
    const { principal, signal } = options;
    const max = this.#options.maxWaiting ?? 100;
    const waitMs = this.#options.waitMs ?? 600_000;
    if (this.#waiting.size >= max || signal?.aborted === true) return { action: 'cancel' };
    const id = token().slice(0, 22);
    const record: Record_ = { p: principal, r: this.replica, q: question as Json, s: 'waiting' };
    const tag = key.questions(principal);
    const made = await this.#store.createCapped(
      key.question(id),
      record,
      { ttlMs: waitMs + FAILED_TTL_MS, tags: [tag] },
      { tag, max },
    );
    if (made !== 'created') return { action: 'cancel' };
    return new Promise((resolve) => {
      const finish = (answer: InboxAnswer) => {
        if (!this.#waiting.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.#waiting.size === 0 && this.#poll !== undefined) {
          clearInterval(this.#poll);
          this.#poll = undefined;
        }
        void this.#store.delete(key.question(id)).catch(() => {});
        resolve(answer);
      };
      const onAbort = () => finish({ action: 'cancel' });
      const timer = setTimeout(onAbort, waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(id, { principal, resolve: finish });
      this.#poll ??= setInterval(() => {
        for (const w of this.#waiting.keys()) void this.#check(w).catch(() => {});
      }, this.#options.pollMs ?? 2000);
      this.#poll.unref();
      this.#options.onWaiting?.({ id, ...question }, principal);
    });
  }

  /** Reads a waiting question's record: answered elsewhere (or failed), the call ends. */
  async #check(id: string): Promise<void> {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    let rec: Record_ | undefined;
    try {
      rec = (await this.#store.get<Record_>(key.question(id)))?.value;
    } catch {
      return; // The store is out: the next poll reads again.
    }
    if (rec === undefined || rec.s === 'failed') waiting.resolve({ action: 'cancel' });
    else if (rec.s === 'answered' && rec.a !== undefined)
      waiting.resolve(rec.a as unknown as InboxAnswer);
  }

  async close(): Promise<void> {
    clearInterval(this.#lease);
    const ids = [...this.#waiting.keys()];
    for (const w of [...this.#waiting.values()]) w.resolve({ action: 'cancel' });
    // Their calls ended with a cancel: no replica lists them any more (before the store closes).
    await Promise.all(ids.map((id) => this.#store.delete(key.question(id)).catch(() => {})));
    this.#unsubscribe();
    await this.#store.delete(key.lease(this.replica)).catch(() => {});
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Whether the replica holding a question still runs (its lease is live). */
  async #alive(replica: string, seen: Map<string, boolean>): Promise<boolean> {
    if (replica === this.replica) return true;
    let alive = seen.get(replica);
    if (alive === undefined) {
      alive = (await this.#store.get(key.lease(replica))) !== undefined;
      seen.set(replica, alive);
    }
    return alive;
  }

  /** A question whose holder is gone is marked failed, so every replica says the same. */
  async #fail(id: string, version: number, rec: Record_): Promise<void> {
    await this.#store
      .update(key.question(id), version, { ...rec, s: 'failed' }, { ttlMs: FAILED_TTL_MS })
      .catch(() => {});
  }

  /** The principal's questions, waiting or failed, as the page shows them. */
  async #list(principal: string): Promise<InboxQuestion[]> {
    const max = this.#options.maxWaiting ?? 100;
    const ids = await this.#store.findByTag(key.questions(principal), { limit: max });
    const seen = new Map<string, boolean>();
    const out: InboxQuestion[] = [];
    for (const k of ids) {
      const stored = await this.#store.get<Record_>(k);
      const rec = stored?.value;
      if (stored === undefined || rec === undefined || rec.p !== principal) continue;
      const id = k.slice(key.question('').length);
      let failed = rec.s === 'failed';
      if (rec.s === 'waiting' && !(await this.#alive(rec.r, seen))) {
        failed = true;
        await this.#fail(id, stored.version, rec);
      } else if (rec.s !== 'waiting' && !failed) continue;
      const q = rec.q as unknown as InboxAsk;
      if (!failed) out.push({ ...q, id });
      else {
        const e = holderLost();
        out.push({ ...q, id, failed: { code: e.code, message: e.message } });
      }
    }
    return out;
  }

  /**
   * Keeps a browser session for `principal`. At `maxSessions` one of theirs is signed out to make
   * room (the person holds every link to their own inbox, so a cap must not lock them out).
   */
  async #keepSession(
    session: string,
    principal: string,
    name: string,
    ttlMs: number,
  ): Promise<string> {
    const tag = key.sessions(principal);
    const cap = { tag, max: this.#options.maxSessions ?? 16 };
    const value: Session = { p: principal, n: name.slice(0, 200), csrf: token() };
    let made = 'full';
    for (let attempt = 0; attempt < 3 && made === 'full'; attempt++) {
      made = await this.#store.createCapped(
        key.session(session),
        value,
        { ttlMs, tags: [tag] },
        cap,
      );
      if (made === 'full')
        for (const k of await this.#store.findByTag(tag, { limit: 1 })) await this.#store.delete(k);
    }
    return made;
  }

  /** The browser's session, when its cookie names a live one. */
  async #session(req: IncomingMessage): Promise<Current> {
    const id = readCookie(req.headers.cookie, this.#cookie, TOKEN);
    const stored = id === undefined ? undefined : await this.#store.get<Session>(key.session(id));
    return id === undefined || stored === undefined ? undefined : { ...stored.value, id };
  }

  #sessionCookie(value: string, maxAgeMs: number): string {
    return `${this.#cookie}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}${this.url.protocol === 'https:' ? '; Secure' : ''}`;
  }

  /**
   * Signs the browser in as `principal` (a link or a sign-in brought it): a new session, the
   * same one for the same principal, or, for a browser signed in as someone else, the page that
   * refuses to switch it silently. `cookies` go out whatever the outcome (a spent login cookie).
   */
  async #enter(
    current: Current,
    principal: string,
    name: string,
    cookies: readonly string[] = [],
  ): Promise<Reply> {
    const to = (...set: string[]): Reply => ({
      status: 303,
      type: 'text/plain',
      body: '',
      headers: { location: '/inbox', 'set-cookie': [...cookies, ...set] },
    });
    if (current?.p === principal) return to();
    if (current !== undefined) {
      const page = switchPage(current.n ?? current.p, name, current.csrf);
      return { ...page, headers: { ...page.headers, 'set-cookie': [...cookies] } };
    }
    const session = token();
    const ttlMs = this.#options.sessionTtlMs ?? 12 * 60 * 60_000;
    if ((await this.#keepSession(session, principal, name, ttlMs)) !== 'created')
      return refusedPage(
        429,
        'Too many browsers are signing in to this inbox at once. Try again later.',
      );
    return to(this.#sessionCookie(session, ttlMs));
  }

  /** A one-time link: taken once, unless the browser is signed in as someone else. */
  async #link(t: string, current: Current): Promise<Reply> {
    const invalid = () =>
      refusedPage(
        403,
        'This link was used already or is not valid; ask the gateway for a new one.',
      );
    if (!TOKEN.test(t)) return invalid();
    const peeked = (await this.#store.get<string>(key.link(t)))?.value;
    // Not spent on a browser that would refuse it: the person can sign out and open it again.
    if (typeof peeked === 'string' && current !== undefined && current.p !== peeked)
      return this.#enter(current, peeked, peeked);
    const taken = (await this.#store.take<string>(key.link(t)))?.value;
    if (typeof taken !== 'string') return invalid();
    return this.#enter(current, taken, taken);
  }

  /** `POST /inbox/logout` from the inbox's own page, with the session's CSRF token. */
  async #logout(req: IncomingMessage, current: Current) {
    if (current === undefined) return refusedPage(401, 'This browser is not signed in.');
    let body = '';
    for await (const chunk of req) {
      body += chunk;
      if (body.length > 1024) return refusedPage(413, 'That request is too large.');
    }
    const csrf = new URLSearchParams(body).get('csrf') ?? '';
    if (req.headers.origin !== this.url.origin || !same(csrf, current.csrf))
      return refusedPage(403, 'This sign-out came from another page; nothing was changed.');
    await this.#store.delete(key.session(current.id));
    return {
      status: 303,
      type: 'text/plain',
      body: '',
      headers: { location: '/inbox', 'set-cookie': this.#sessionCookie('', 0) },
    };
  }

  /** The sign-in's steps (inbox-login.ts); undefined for any other address. */
  async #login(
    req: IncomingMessage,
    url: URL,
    login: InboxSignIn,
    current: Current,
  ): Promise<Reply | undefined> {
    if (req.method !== 'GET') return undefined;
    const cookies = req.headers.cookie;
    if (url.pathname === '/inbox/login') return login.start(cookies);
    if (url.pathname === '/inbox/login/callback') return login.callback(url, cookies);
    if (url.pathname !== '/inbox/login/done') return undefined;
    const done = await login.done(url, cookies);
    if ('status' in done) return done;
    return this.#enter(current, done.principal, done.name, [done.clearCookie]);
  }

  /** @internal */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (
      status: number,
      type: string,
      body: string,
      extra: Reply['headers'] = {},
      csp = CSP,
    ): void => {
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(extra)) headers[k] = typeof v === 'string' ? v : [...v];
      res
        .writeHead(status, {
          'content-type': type,
          'content-security-policy': csp,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-store',
          ...headers,
        })
        .end(body);
    };
    // The pages other than the inbox's own may post a form to it (signing out).
    const reply = (r: Reply) => send(r.status, r.type, r.body, r.headers, PAGE_CSP);
    // DNS rebinding: only our own address may be named.
    // (Behind a proxy that names the address it forwards to, that address is ours too.)
    if (req.headers.host !== this.url.host && req.headers.host !== this.address.host)
      return send(421, 'text/plain', 'wrong host');
    const url = new URL(req.url ?? '/', this.url);
    if (req.url !== undefined && req.url.length > MAX_CALLBACK_CHARS)
      return send(414, 'text/plain', 'too long');
    if (url.pathname === '/inbox.css') return send(200, 'text/css', CSS);
    if (url.pathname === '/inbox.js') return send(200, 'text/javascript', await inboxPageScript());
    const session = await this.#session(req);
    if (req.method === 'GET' && url.pathname === '/inbox' && url.searchParams.has('t'))
      return reply(await this.#link(url.searchParams.get('t') ?? '', session));
    if (req.method === 'POST' && url.pathname === '/inbox/logout')
      return reply(await this.#logout(req, session));
    const login =
      this.#signIn === undefined ? undefined : await this.#login(req, url, this.#signIn, session);
    if (login !== undefined) return reply(login);
    if (session === undefined) {
      // The page itself says how to get in; its endpoints answer plainly.
      if (req.method === 'GET' && url.pathname === '/inbox')
        return reply(
          this.#signIn === undefined ? linkNeededPage() : signInPage(this.#signIn.provider),
        );
      return send(
        401,
        'text/plain',
        'Open the link the gateway printed to see the questions waiting for you.',
      );
    }
    if (req.method === 'GET' && url.pathname === '/inbox')
      return send(200, 'text/html; charset=utf-8', PAGE(session.csrf));
    if (req.method === 'GET' && url.pathname === '/inbox/questions')
      return send(200, 'application/json', JSON.stringify(await this.#list(session.p)));
    if (req.method === 'POST' && url.pathname === '/inbox/answer') {
      if (
        req.headers.origin !== this.url.origin ||
        !same(String(req.headers['x-elicit-csrf'] ?? ''), session.csrf)
      )
        return send(403, 'text/plain', 'refused');
      let body = '';
      for await (const chunk of req) {
        body += chunk;
        if (body.length > MAX_BODY) return send(413, 'text/plain', 'too large');
      }
      let posted: { id?: unknown };
      try {
        posted = JSON.parse(body);
      } catch {
        return send(400, 'text/plain', 'not JSON');
      }
      const id =
        typeof posted?.id === 'string' && /^[A-Za-z0-9_-]{22}$/.test(posted.id)
          ? posted.id
          : undefined;
      const stored =
        id === undefined ? undefined : await this.#store.get<Record_>(key.question(id));
      const rec = stored?.value;
      // Another principal's question is "not waiting", as one that never was.
      if (id === undefined || stored === undefined || rec === undefined || rec.p !== session.p)
        return send(404, 'text/plain', 'That question is not waiting any more.');
      const gone = () => {
        const e = holderLost();
        return send(410, 'application/json', JSON.stringify({ code: e.code, message: e.message }));
      };
      if (rec.s === 'failed') return gone();
      if (rec.s !== 'waiting')
        return send(404, 'text/plain', 'That question is not waiting any more.');
      if (!(await this.#alive(rec.r, new Map()))) {
        await this.#fail(id, stored.version, rec);
        return gone();
      }
      const answer = readAnswer(
        posted,
        (rec.q as { mode?: unknown }).mode === 'url' ? 'url' : 'form',
      );
      if (answer === undefined) return send(400, 'text/plain', 'unknown action');
      const written = await this.#store.update(key.question(id), stored.version, {
        ...rec,
        s: 'answered',
        a: answer as unknown as Json,
      });
      if (!written) return send(404, 'text/plain', 'That question is not waiting any more.');
      // The holder re-reads its questions every pollMs, so a lost wake-up only delays the answer.
      await this.#bus.publish({ inbox: id }).catch(() => {});
      return send(204, 'text/plain', '');
    }
    return send(404, 'text/plain', 'not found');
  }
}
