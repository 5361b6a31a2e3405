/** The pages about the person rather than a record: the index and signing out. */
import type { Hono } from 'hono';
import { readForm } from './body.ts';
import { type PagesContext, redirect } from './context.ts';
import { escapeHtml, failed, render } from './pages.ts';
import { whoOf } from './sessions.ts';

export function mountAccountRoutes(app: Hono, ctx: PagesContext): void {
  const { sessions, options } = ctx;
  app.post('/elicit/logout', async (c) => {
    const session = await sessions.current(c.req.header('cookie'));
    if (!ctx.sameOrigin(c.req.raw))
      return failed('This form was not sent from this page.', whoOf(session), 403);
    if (session === undefined) return redirect('/elicit/');
    const form = await readForm(c.req.raw, ctx.limits.bodyBytes, whoOf(session));
    if (form instanceof Response) return form;
    if (form.get('csrf') !== session.csrf) {
      ctx.log({ type: 'csrf_refused', id: 'logout' });
      return failed('This form was not sent from this page.', whoOf(session), 403);
    }
    const cleared = await sessions.end(session);
    const next = ctx.safeNext(form.get('next') ?? undefined);
    // A page, not a redirect: the sign-in goes to another origin, which CSP form-action forbids
    // as the end of a form's redirect chain.
    const res = render({
      title: 'Signed out',
      who: null,
      body:
        next === '/elicit/'
          ? '<h1>Signed out</h1><p class="muted">Open the link from your assistant again to continue.</p>'
          : `<h1>Signed out</h1><p class="actions"><a id="sign-in" class="button primary" href="${escapeHtml(options.login.start(next))}">Sign in again</a></p>`,
    });
    res.headers.append('set-cookie', cleared);
    return res;
  });

  // Where a sign-in with no link to return to lands.
  app.get('/elicit/', async (c) =>
    render({
      title: 'Connect',
      who: await ctx.whoIs(c.req.raw),
      body: '<h1>Nothing to do here</h1><p class="muted">Open the link from your assistant to continue.</p>',
    }),
  );
}
