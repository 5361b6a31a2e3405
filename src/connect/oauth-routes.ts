/**
 * Third-party OAuth on the connect pages: the page that sends the person to the provider (a
 * link they click, never an instant redirect) and the callback that brings them back. The
 * transaction is single-use, bound to the browser that started it and to the record's owner.
 */
import type { Hono } from 'hono';
import type { Gated, PagesContext } from './context.ts';
import { newState, newVerifier, OAuthFlowError } from './oauth.ts';
import { done, escapeHtml, failed, notAvailable, render } from './pages.ts';
import { browserBinding, whoOf } from './sessions.ts';
import { recordEntryName, recordValueTtl, vaultEntryName } from './vault.ts';

interface OAuthTx {
  readonly recordId: string;
  readonly provider: string;
  readonly verifier: string;
  readonly browser: string;
}

const TX_TTL_MS = 10 * 60_000;

/** The connect page of a `connect` record: where the person will sign in, and No thanks. */
export async function oauthPage(ctx: PagesContext, { record, session }: Gated): Promise<Response> {
  const who = whoOf(session);
  const provider = ctx.providers.get(record.subject);
  if (provider === undefined) return notAvailable(who);
  const state = newState();
  const verifier = newVerifier();
  let url: URL;
  try {
    url = await provider.authorizationUrl(ctx.redirectUri, state, verifier);
  } catch (error) {
    return failed(
      error instanceof OAuthFlowError ? error.message : 'The provider is not reachable right now.',
      who,
      502,
    );
  }
  const tx: OAuthTx = {
    recordId: record.id,
    provider: provider.name,
    verifier,
    browser: browserBinding(session),
  };
  await ctx.options.store.create(`oauth:${state}`, tx as never, { ttlMs: TX_TTL_MS });
  // A page with a link rather than an instant redirect: the person sees where they are going,
  // and the navigation to the provider is their own click (CSP form-action stays 'self').
  const label = escapeHtml(record.label ?? provider.name);
  return render({
    title: `Connect ${record.label ?? provider.name}`,
    who,
    body: `<h1>Connect <bdi>${label}</bdi></h1>${record.description === undefined ? '' : `<p dir="auto">${escapeHtml(record.description)}</p>`}
<p>You will sign in at <strong><bdi>${escapeHtml(url.host)}</bdi></strong> and allow access. Your assistant never sees your password or tokens.</p>
<div class="actions"><a id="continue" class="button primary" href="${escapeHtml(url.href)}">Continue to <bdi>${escapeHtml(url.host)}</bdi></a>
<form method="post" action="/elicit/${escapeHtml(record.id)}/decline"><input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}"><button type="submit">No thanks</button></form></div>`,
  });
}

/** GET /elicit/oauth/callback: the provider comes back; tokens go to the vault, never the page. */
export function mountOAuthCallback(app: Hono, ctx: PagesContext): void {
  const { options, log } = ctx;
  app.get('/elicit/oauth/callback', async (c) => {
    const current = new URL(c.req.url);
    const state = current.searchParams.get('state') ?? '';
    const tx =
      state === ''
        ? undefined
        : ((await options.store.take<never>(`oauth:${state}`))?.value as OAuthTx | undefined);
    const session = await ctx.sessions.current(c.req.header('cookie'));
    const who = whoOf(session);
    if (tx === undefined) {
      log({ type: 'oauth_refused', reason: 'unknown or reused state' });
      return failed(
        'This sign-in response is not expected here (it may have been used already).',
        who,
      );
    }
    if (session === undefined || browserBinding(session) !== tx.browser) {
      log({ type: 'oauth_refused', reason: 'state from another browser' });
      return failed('This sign-in was started in another browser.', who, 403);
    }
    const record = await options.records.get(tx.recordId);
    if (
      record === undefined ||
      record.status !== 'pending' ||
      record.principal !== session.principal
    )
      return notAvailable(who);
    const provider = ctx.providers.get(tx.provider);
    if (provider === undefined) return notAvailable(who);
    try {
      const tokens = await provider.exchange(current, state, ctx.redirectUri, tx.verifier);
      // The record's own copy first (the account the request that asked connects), then the
      // principal's connection for later asks.
      await options.vault.put(
        { principal: record.principal, provider: recordEntryName(record.id) },
        tokens as never,
        recordValueTtl(record.expiresAt),
      );
      await options.vault.put(
        { principal: record.principal, provider: vaultEntryName('connect', provider.name) },
        tokens as never,
        ctx.vaultTtl,
      );
    } catch (error) {
      log({
        type: 'oauth_refused',
        reason: error instanceof OAuthFlowError ? error.code : 'exchange failed',
      });
      return failed(
        error instanceof OAuthFlowError ? error.message : 'The sign-in could not be completed.',
        who,
      );
    }
    if (await ctx.settle(record.id, 'complete'))
      log({ type: 'completed', id: record.id, purpose: record.purpose });
    return done(`${provider.name} is connected.`, who);
  });
}
