/**
 * The inbox's few pages that are not the inbox itself: the sign-in page, a refusal that says
 * why, and the page for a browser signed in as someone else. Plain HTML with the inbox's own
 * stylesheet and no script; every text from a peer (names, principals) is escaped.
 */

/** What the inbox answers: status, content type, body and headers (cookies may repeat). */
export interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

/** Text made safe inside HTML elements and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/** A page in the inbox's style: its title and its body (already HTML). */
export function htmlPage(
  status: number,
  title: string,
  body: string,
  headers?: Reply['headers'],
): Reply {
  return {
    status,
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} — elicit</title>
<link rel="stylesheet" href="/inbox.css"></head><body><main>${body}</main></body></html>`,
    ...(headers === undefined ? {} : { headers }),
  };
}

/** Why a sign-in or a link did not sign the browser in, with the code to look up. */
export function refusedPage(
  status: number,
  message: string,
  code?: string,
  headers?: Reply['headers'],
): Reply {
  const tail = code === undefined ? '' : ` <span class="done">(${escapeHtml(code)})</span>`;
  return htmlPage(
    status,
    'Not signed in',
    `<h1>Not signed in</h1><p>${escapeHtml(message)}${tail}</p><p><a href="/inbox">Back to the inbox</a></p>`,
    headers,
  );
}

/** A browser without a session, where the inbox has a sign-in: the one way in. */
export function signInPage(provider: string): Reply {
  return htmlPage(
    401,
    'Sign in',
    `<h1>Questions waiting for you</h1><p>Sign in to see the questions your assistant's host could not show.</p>
<p><a id="sign-in" class="button" href="/inbox/login">Sign in with ${escapeHtml(provider)}</a></p>
<p class="done">Or open the one-time link the gateway gave you.</p>`,
  );
}

/** A browser without a session, where the inbox has no sign-in: the links are the way in. */
export function linkNeededPage(): Reply {
  return htmlPage(
    401,
    'Not signed in',
    `<h1>Questions waiting for you</h1><p>Open the link the gateway printed to see the questions waiting for you. Each link works once; ask the gateway for a new one.</p>`,
  );
}

/**
 * A browser signed in as `current` brought a sign-in for `presented`: nothing changes, and the
 * person may sign out first (a POST with the session's CSRF token) to use the other identity.
 */
export function switchPage(current: string, presented: string, csrf: string): Reply {
  return htmlPage(
    409,
    'Signed in as someone else',
    `<h1>You are already signed in</h1><p>This browser is signed in as <strong><bdi>${escapeHtml(current)}</bdi></strong>, but this sign-in is for <strong><bdi>${escapeHtml(presented)}</bdi></strong>. Nothing was changed.</p>
<p class="done">If you did not just sign in yourself, someone may have sent you their sign-in link: keep your account and close this tab.</p>
<form method="post" action="/inbox/logout"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<p>To use the other account, sign out of <strong><bdi>${escapeHtml(current)}</bdi></strong> first, then sign in again.</p><button type="submit" id="sign-out">Sign out</button></form>
<p><a href="/inbox">Back to my questions</a></p>`,
    // A form posted with no referrer policy carries `Origin: null`; the sign-out checks it.
    { 'referrer-policy': 'same-origin' },
  );
}
