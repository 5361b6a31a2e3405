/**
 * A secret typed into the connect page: the form, its POST (stored encrypted in the vault under
 * the record's owner) and No thanks, which serves both kinds of record.
 */
import type { Hono } from 'hono';
import { transitOf } from '../kernel/transit.ts';
import type { Gated, PagesContext } from './context.ts';
import { done, escapeHtml, failed, notAvailable, render } from './pages.ts';
import { whoOf } from './sessions.ts';
import { recordEntryName, recordValueTtl, vaultEntryName } from './vault.ts';

/** The longest secret the form takes (the input's maxlength, checked again on POST). */
const SECRET_MAX_CHARS = 4096;

// The connect pages are served on https or on loopback only (createConnectApp refuses others).
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The page of a `secret` record: one password field, Save and No thanks. What it says about
 * encryption is what is true of this page's address (the terminal says the same sentence
 * before opening it) and of the vault (encrypted at rest).
 */
export function secretPage({ record, session }: Gated, baseUrl: URL): Response {
  const transit = transitOf(baseUrl.protocol, LOOPBACK.has(baseUrl.hostname));
  const label = escapeHtml(record.label ?? record.subject);
  return render({
    title: `Enter ${record.label ?? record.subject}`,
    who: whoOf(session),
    body: `<h1 dir="auto">${label}</h1>${record.description === undefined ? '' : `<p dir="auto">${escapeHtml(record.description)}</p>`}
<p class="muted">${escapeHtml(transit)} It is stored encrypted for the server that asked; your assistant never sees it.</p>
<form method="post" action="/elicit/${escapeHtml(record.id)}/secret" class="box" autocomplete="off">
<label for="secret" dir="auto">${label}</label><input id="secret" name="secret" type="password" required maxlength="${SECRET_MAX_CHARS}" dir="auto">
<input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}"><button type="submit" class="primary">Save</button></form>
<form class="actions" method="post" action="/elicit/${escapeHtml(record.id)}/decline"><input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}"><button type="submit">No thanks</button></form>`,
  });
}

/** POST /elicit/<id>/secret and POST /elicit/<id>/decline. */
export function mountRecordPosts(app: Hono, ctx: PagesContext): void {
  app.post('/elicit/:id/secret', async (c) => {
    const checked = await ctx.posted(c.req.param('id'), c.req.raw);
    if (checked instanceof Response) return checked;
    const { record, form } = checked;
    const who = whoOf(checked.session);
    if (record.purpose !== 'secret') return notAvailable(who);
    const secret = form.get('secret') ?? '';
    if (secret.length === 0 || secret.length > SECRET_MAX_CHARS)
      return failed(`Enter a value of at most ${SECRET_MAX_CHARS} characters.`, who);
    // First the record's own copy (what the request that asked reads, whatever another page
    // saves under the same name meanwhile), then the principal's value for later asks.
    await ctx.options.vault.put(
      { principal: record.principal, provider: recordEntryName(record.id) },
      secret,
      recordValueTtl(record.expiresAt),
    );
    await ctx.options.vault.put(
      { principal: record.principal, provider: vaultEntryName('secret', record.subject) },
      secret,
      ctx.vaultTtl,
    );
    if (await ctx.settle(record.id, 'complete'))
      ctx.log({ type: 'completed', id: record.id, purpose: record.purpose });
    return done(`${record.label ?? record.subject} is saved.`, who);
  });

  app.post('/elicit/:id/decline', async (c) => {
    const checked = await ctx.posted(c.req.param('id'), c.req.raw);
    if (checked instanceof Response) return checked;
    await ctx.settle(checked.record.id, 'declined');
    return done('Nothing was saved.', whoOf(checked.session));
  });
}
