/**
 * The connect pages: plain HTML, every value escaped, no scripts (but the inbox page's own, from
 * this origin), no third-party assets, one
 * inline style allowed by a per-response nonce, and headers that forbid framing and sniffing.
 */
import { randomBytes } from 'node:crypto';

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`=/]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Who the browser is signed in as, shown on every page with a way to sign out. */
export interface Who {
  readonly name: string;
  readonly csrf: string;
}

export interface Page {
  readonly title: string;
  /** Trusted HTML built with escapeHtml by the callers in this folder. */
  readonly body: string;
  /** Required on purpose: every page says who is signed in (null: nobody). */
  readonly who: Who | null;
  readonly status?: number;
  /**
   * This origin's module script and the `<meta>` values it reads (the inbox page): the CSP then
   * allows scripts and fetches from this origin only. Other pages have none.
   */
  readonly script?: { readonly src: string; readonly meta: Readonly<Record<string, string>> };
}

function whoLine(who: Who | null): string {
  if (who === null) return '<p class="muted who">Not signed in.</p>';
  return `<form class="muted who" method="post" action="/elicit/logout">Signed in as <strong><bdi>${escapeHtml(who.name)}</bdi></strong>. <input type="hidden" name="csrf" value="${escapeHtml(who.csrf)}"><button class="link">Sign out</button></form>`;
}

/*
 * WCAG 2.2 AA in both schemes (checked in Chromium with axe): text ≥ 4.5:1, the focus ring and
 * control edges ≥ 3:1; the main action is a filled button, the way out a plain one; server text
 * wraps and keeps its own direction (`dir="auto"`, `<bdi>`).
 */
const STYLE = `:root{color-scheme:light dark;--fg:#1b1b1f;--bg:#fff;--muted:#55555f;--line:#76768a;--box:#c6c6d2;--accent:#0b57d0;--on-accent:#fff;--danger:#a4000f;--focus:#0b57d0;--raise:#f3f3f6}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--bg:#15151a;--muted:#b4b4c2;--line:#8a8a9e;--box:#44445a;--accent:#8ab4f8;--on-accent:#10131a;--danger:#ff9a90;--focus:#8ab4f8;--raise:#22222a}}
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
h1{font-size:1.4rem;line-height:1.3}a{color:var(--accent)}.box{border:1px solid var(--box);border-radius:.5rem;padding:1rem 1.25rem}
.muted{color:var(--muted)}.danger{color:var(--danger)}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input{font:inherit;width:100%;padding:.5rem;box-sizing:border-box;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:.3rem}
button,.button{display:inline-block;font:inherit;line-height:1.5;padding:.5rem 1.1rem;border:1px solid var(--line);border-radius:.4rem;background:var(--raise);color:var(--fg);text-decoration:none;cursor:pointer}
.primary{background:var(--accent);border-color:var(--accent);color:var(--on-accent);font-weight:600}
.actions{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem;margin-top:1rem}.actions form{margin:0}form.box button{margin-top:1rem}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
section{margin:1.5rem 0}section h2{font-size:1rem;margin:0 0 .5rem}.done{color:var(--muted)}
.who{font-size:.9rem;border-bottom:1px solid var(--box);padding-bottom:.5rem}.who button.link{margin:0;padding:0;border:0;background:none;color:inherit;text-decoration:underline;cursor:pointer}`;

export function render(page: Page): Response {
  const nonce = randomBytes(16).toString('base64');
  const { script } = page;
  const head =
    script === undefined
      ? ''
      : `${Object.entries(script.meta)
          .map(
            ([name, content]) =>
              `<meta name="${escapeHtml(name)}" content="${escapeHtml(content)}">`,
          )
          .join('')}<script type="module" src="${escapeHtml(script.src)}"></script>`;
  const scripts = script === undefined ? '' : " script-src 'self'; connect-src 'self';";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(page.title)}</title><style nonce="${nonce}">${STYLE}</style>${head}</head>
<body><main>${whoLine(page.who)}${page.body}</main></body></html>`;
  return new Response(html, {
    status: page.status ?? 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none';${scripts} style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      // same-origin: our own form posts keep their Origin header; other sites get nothing.
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
      'cross-origin-opener-policy': 'same-origin',
    },
  });
}

/** The same page for unknown, expired, guessed and not-yours links: it tells an attacker nothing. */
export function notAvailable(who: Who | null): Response {
  return render({
    title: 'Link not available',
    who,
    status: 404,
    body: '<h1>This link is not available</h1><p class="muted">It may have expired, been used already, or belong to someone else. Go back to your assistant and try again.</p>',
  });
}

export function done(message: string, who: Who | null): Response {
  return render({
    title: 'Done',
    who,
    body: `<h1>Done</h1><p dir="auto">${escapeHtml(message)}</p><p class="muted">You can close this tab and return to your assistant.</p>`,
  });
}

/** The store is down: nothing was done, and trying again in a moment will work. */
export function unavailable(): Response {
  const res = render({
    title: 'Try again in a moment',
    who: null,
    status: 503,
    body: '<h1>This page is unavailable for a moment</h1><p>The server could not reach its storage, so nothing was saved or changed.</p><p class="muted">Reload this page in a few seconds.</p>',
  });
  res.headers.set('retry-after', '5');
  return res;
}

export function failed(message: string, who: Who | null, status = 400): Response {
  return render({
    title: 'Something went wrong',
    who,
    status,
    body: `<h1>That did not work</h1><p class="danger" dir="auto">${escapeHtml(message)}</p><p class="muted">Nothing was saved. Go back to your assistant and try again.</p>`,
  });
}
