/**
 * The web inbox: where the host cannot ask, the person still can. Questions wait here and are
 * shown on a loopback page with `<elicit-form>`; the page is bound to whoever opened the
 * one-time link (a single-use token in the link becomes an HttpOnly, SameSite=Strict session
 * cookie; answers need that cookie, the page's CSRF token in a header and the page's own
 * Origin), served with a CSP that allows only its own script, and checks the Host header against
 * DNS rebinding. A form is shown with `<elicit-form>`; a URL page with `<elicit-url-consent>`,
 * given the gateway's own elicit/url analysis, so the person opens or declines it here.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inboxPageScript } from '../kernel/inbox-script.ts';
import type { UrlAnalysis } from '../url/index.ts';

export interface InboxOptions {
  /** Loopback address to listen on; default 127.0.0.1, port 0 (any free port). */
  readonly host?: string;
  readonly port?: number;
  /** Questions waiting at once; past it a question is cancelled. Default 100. */
  readonly maxWaiting?: number;
  /** How long a question waits for the person; default 10 minutes, then it is cancelled. */
  readonly waitMs?: number;
  /** Called when a question starts waiting (the CLI's `--notify`). */
  readonly onWaiting?: (question: InboxQuestion) => void;
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

/** What the page shows of a waiting question. */
export type InboxQuestion = InboxAsk & { readonly id: string };

/** A form's answer, or `opened` when the person opened a URL page from the inbox. */
export type InboxAnswer =
  | { readonly action: 'accept'; readonly content: Record<string, unknown> }
  | { readonly action: 'opened' }
  | { readonly action: 'decline' | 'cancel' };

interface Waiting {
  readonly question: InboxQuestion;
  readonly resolve: (answer: InboxAnswer) => void;
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const MAX_BODY = 256 * 1024;
const MAX_SESSIONS = 16;

const token = () => randomBytes(32).toString('base64url');
const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const PAGE = (csrf: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf" content="${csrf}"><meta name="inbox" content="/inbox"><title>Questions waiting — elicit</title>
<link rel="stylesheet" href="/inbox.css"></head><body>
<main><h1>Questions waiting for you</h1>
<p id="empty">Nothing is waiting. Questions your assistant's host cannot show appear here.</p>
<div id="questions"></div></main>
<script type="module" src="/inbox.js"></script></body></html>`;

const CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:CanvasText;background:Canvas}
main{max-width:40rem;margin:0 auto;padding:1rem}section{border:1px solid GrayText;border-radius:8px;padding:1rem;margin:1rem 0}
h2{font-size:1rem;margin:0 0 .5rem}.done{color:GrayText}:root{color-scheme:light dark}`;

/** The inbox of one gateway process. */
export class Inbox {
  readonly url: URL;
  readonly #server: Server;
  readonly #options: InboxOptions;
  readonly #waiting = new Map<string, Waiting>();
  /** One-time link tokens not used yet. */
  readonly #links = new Set<string>();
  /** Session cookie → CSRF token. */
  readonly #sessions = new Map<string, string>();

  private constructor(server: Server, url: URL, options: InboxOptions) {
    this.#server = server;
    this.url = url;
    this.#options = options;
  }

  /** Starts the inbox on loopback. */
  static async start(options: InboxOptions = {}): Promise<Inbox> {
    const host = options.host ?? '127.0.0.1';
    let inbox: Inbox | undefined;
    const server = createServer((req, res) => {
      inbox?.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    inbox = new Inbox(server, new URL(`http://${host}:${port}/inbox`), options);
    return inbox;
  }

  /** A link that signs one browser in, once. */
  link(): string {
    const t = token();
    this.#links.add(t);
    return `${this.url.href}?t=${t}`;
  }

  /** Questions waiting now. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Waits for the person to answer `question` (cancel on timeout, abort or a full inbox). */
  ask(question: InboxAsk, signal?: AbortSignal): Promise<InboxAnswer> {
    const max = this.#options.maxWaiting ?? 100;
    if (this.#waiting.size >= max || signal?.aborted === true)
      return Promise.resolve({ action: 'cancel' });
    const id = token().slice(0, 22);
    return new Promise((resolve) => {
      const finish = (answer: InboxAnswer) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiting.delete(id);
        resolve(answer);
      };
      const onAbort = () => finish({ action: 'cancel' });
      const timer = setTimeout(onAbort, this.#options.waitMs ?? 600_000);
      signal?.addEventListener('abort', onAbort, { once: true });
      const full: InboxQuestion = { id, ...question };
      this.#waiting.set(id, { question: full, resolve: finish });
      this.#options.onWaiting?.(full);
    });
  }

  async close(): Promise<void> {
    for (const w of [...this.#waiting.values()]) w.resolve({ action: 'cancel' });
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** @internal */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (
      status: number,
      type: string,
      body: string,
      extra: Record<string, string> = {},
    ): void => {
      res
        .writeHead(status, {
          'content-type': type,
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-store',
          ...extra,
        })
        .end(body);
    };
    // DNS rebinding: only our own address may be named.
    if (req.headers.host !== this.url.host) return send(421, 'text/plain', 'wrong host');
    const url = new URL(req.url ?? '/', this.url);
    const cookie = /(?:^|;\s*)elicit_inbox=([A-Za-z0-9_-]{43})/.exec(req.headers.cookie ?? '')?.[1];
    const csrf = cookie === undefined ? undefined : this.#sessions.get(cookie);
    if (req.method === 'GET' && url.pathname === '/inbox' && url.searchParams.has('t')) {
      const t = url.searchParams.get('t') ?? '';
      if (!this.#links.delete(t))
        return send(
          403,
          'text/plain',
          'This link was used already or is not valid; ask the gateway for a new one.',
        );
      const session = token();
      if (this.#sessions.size >= MAX_SESSIONS)
        this.#sessions.delete(this.#sessions.keys().next().value as string);
      this.#sessions.set(session, token());
      return send(303, 'text/plain', '', {
        location: '/inbox',
        'set-cookie': `elicit_inbox=${session}; HttpOnly; SameSite=Strict; Path=/`,
      });
    }
    if (url.pathname === '/inbox.css') return send(200, 'text/css', CSS);
    if (url.pathname === '/inbox.js') return send(200, 'text/javascript', await inboxPageScript());
    if (csrf === undefined)
      return send(
        401,
        'text/plain',
        'Open the link the gateway printed to see the questions waiting for you.',
      );
    if (req.method === 'GET' && url.pathname === '/inbox')
      return send(200, 'text/html; charset=utf-8', PAGE(csrf));
    if (req.method === 'GET' && url.pathname === '/inbox/questions')
      return send(
        200,
        'application/json',
        JSON.stringify([...this.#waiting.values()].map((w) => w.question)),
      );
    if (req.method === 'POST' && url.pathname === '/inbox/answer') {
      if (
        req.headers.origin !== this.url.origin ||
        !same(String(req.headers['x-elicit-csrf'] ?? ''), csrf)
      )
        return send(403, 'text/plain', 'refused');
      let body = '';
      for await (const chunk of req) {
        body += chunk;
        if (body.length > MAX_BODY) return send(413, 'text/plain', 'too large');
      }
      let answer: { id?: unknown; action?: unknown; content?: unknown };
      try {
        answer = JSON.parse(body);
      } catch {
        return send(400, 'text/plain', 'not JSON');
      }
      const waiting = typeof answer.id === 'string' ? this.#waiting.get(answer.id) : undefined;
      if (waiting === undefined)
        return send(404, 'text/plain', 'That question is not waiting any more.');
      const url = waiting.question.mode === 'url';
      if (url && answer.action === 'opened') waiting.resolve({ action: 'opened' });
      else if (
        !url &&
        answer.action === 'accept' &&
        typeof answer.content === 'object' &&
        answer.content !== null
      )
        waiting.resolve({ action: 'accept', content: answer.content as Record<string, unknown> });
      else if (answer.action === 'decline' || answer.action === 'cancel')
        waiting.resolve({ action: answer.action });
      else return send(400, 'text/plain', 'unknown action');
      return send(204, 'text/plain', '');
    }
    return send(404, 'text/plain', 'not found');
  }
}
