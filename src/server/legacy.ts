/** The legacy engine: 2025-06-18 / 2025-11-25 sessions, where the server can push requests. */
import { randomUUID } from 'node:crypto';
import {
  type ClientCapabilities,
  type McpServer,
  SdkError,
  SdkErrorCode,
  type ServerContext,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
import type { RecordPurpose } from '../connect/records.ts';
import {
  type AllSpec,
  type Ask,
  type AskLimits,
  checkKey,
  confirm,
  declares,
  defaultMessage,
  forRevision,
  judge,
  keepAnswers,
  rejected,
  withReasons,
} from './ask.ts';
import {
  AskAbandonedError,
  AskTimeoutError,
  AskUsageError,
  ElicitationUnsupportedError,
} from './errors.ts';
import { refuseSensitive, resolveForm } from './forms.ts';
import type { PendingAsks } from './pending.ts';
import {
  askConnect,
  askSecret,
  ConnectNotConfiguredError,
  type ConnectSettings,
  claimRecentCompletion,
  linkMessage,
  waitForRecord,
} from './url-mode.ts';

export interface LegacyExtras {
  readonly principal: string;
  readonly connect: ConnectSettings | undefined;
  /** The server's count of waiting asks; this session is `mcp`. */
  readonly pending: PendingAsks;
}

export function legacyAsk(
  ctx: ServerContext,
  mcp: McpServer,
  limits: AskLimits,
  extras: LegacyExtras,
): Ask {
  const caps: ClientCapabilities | undefined = mcp.server.getClientCapabilities();
  const revision = mcp.server.getNegotiatedProtocolVersion() ?? '2025-11-25';
  const signal = ctx.mcpReq.signal;
  const waiter = { principal: extras.principal, session: mcp };
  /**
   * Every wait for the client holds a slot (refused past the caps, never queued). A timeout is
   * the person not answering; an abort or a closed connection is the client going away (it
   * cancelled, hung up, or its session closed): both end as typed errors the runner reports.
   */
  const waitFor = async <T>(key: string, send: () => Promise<T>): Promise<T> => {
    if (signal.aborted) throw new AskAbandonedError(key, { cause: signal.reason });
    const release = extras.pending.acquire(waiter);
    try {
      return await send();
    } catch (error) {
      if (
        signal.aborted ||
        (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
      )
        throw new AskAbandonedError(key, { cause: error });
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        throw new AskTimeoutError(key, limits.timeoutMs);
      throw error;
    } finally {
      release();
    }
  };
  const options = () => ({
    relatedRequestId: ctx.mcpReq.id,
    timeout: limits.timeoutMs,
    signal,
  });

  /**
   * One URL step behind a connect link: a record bound to the principal, then either the
   * in-call flow (URL elicitation, wait for completion, notify the client) or -32042.
   */
  async function urlStep(
    purpose: RecordPurpose,
    subject: string,
    label: string,
    description: string | undefined,
    message: string | undefined,
  ): Promise<'complete' | 'decline' | 'cancel'> {
    const settings = extras.connect;
    if (settings === undefined)
      throw new ConnectNotConfiguredError(purpose === 'connect' ? 'ask.connect' : 'ask.secret');
    if (!declares(caps, 'url')) throw new ElicitationUnsupportedError('URL elicitation');
    const record = await settings.app.records.create({
      principal: extras.principal,
      clientId: ctx.http?.authInfo?.clientId,
      purpose,
      subject,
      label,
      description,
      origin: ctx.sessionId === undefined ? undefined : { sessionId: ctx.sessionId },
    });
    const url = settings.app.link(record.id);
    const text = linkMessage(purpose, label, message);
    // The completion notification goes to this session only: the client that asked. After a
    // -32042 the call is over, so it rides the session's standalone stream, not the call's.
    const errorMode = settings.legacyMode === 'error';
    const notify = mcp.server.createElicitationCompletionNotifier(
      record.id,
      errorMode ? undefined : { relatedRequestId: ctx.mcpReq.id },
    );
    if (errorMode) {
      const stop = settings.app.bus.subscribe((e) => {
        if (e.id !== record.id) return;
        stop();
        void notify().catch(() => {});
      });
      setTimeout(stop, Math.max(0, record.expiresAt - Date.now())).unref();
      throw new UrlElicitationRequiredError([
        { mode: 'url', message: text, url, elicitationId: record.id },
      ]);
    }
    const response = await waitFor(subject, () =>
      ctx.mcpReq.elicitInput(
        { mode: 'url', message: text, url, elicitationId: record.id },
        options(),
      ),
    );
    const action = (response as { action?: unknown }).action;
    if (action !== 'accept') {
      await settings.app.records.finish(record.id, 'declined');
      return action === 'decline' ? 'decline' : 'cancel';
    }
    const status = await waitFor(subject, () =>
      waitForRecord(settings, record.id, settings.waitMs ?? limits.timeoutMs, signal),
    );
    if (signal.aborted) throw new AskAbandonedError(subject, { cause: signal.reason });
    if (status === 'timeout')
      throw new AskTimeoutError(subject, settings.waitMs ?? limits.timeoutMs);
    if (status === 'complete') {
      await notify().catch(() => {});
      return 'complete';
    }
    return status === 'declined' ? 'decline' : 'cancel';
  }

  const ask: Ask = {
    confirm: (key, message, options) => confirm(ask, key, message, options),
    revision,
    async connect(provider, opts) {
      return askConnect(extras.connect, extras.principal, provider, opts, false, urlStep);
    },
    async secret(key, opts) {
      checkKey(key);
      const settings = extras.connect;
      // After a -32042 the retried call claims the completion it caused, once.
      const claimed =
        opts.fresh === true &&
        settings?.legacyMode === 'error' &&
        (await claimRecentCompletion(settings, extras.principal, 'secret', key));
      return askSecret(
        settings,
        extras.principal,
        key,
        opts,
        opts.fresh === true && !claimed,
        urlStep,
      );
    },
    can: (what) => declares(caps, what),
    async form(key, input, opts) {
      checkKey(key);
      if (!declares(caps, 'form')) throw new ElicitationUnsupportedError('form elicitation');
      const form = resolveForm(input);
      refuseSensitive(key, form, opts?.allowSensitive);
      const lowered = forRevision(form, revision);
      const message = opts?.message ?? defaultMessage(form);
      let issues: Parameters<typeof withReasons>[1] = [];
      let previous: unknown;
      for (let attempt = 1; attempt <= limits.maxAttempts; attempt++) {
        const response = await waitFor(key, () =>
          ctx.mcpReq.elicitInput(
            {
              mode: 'form',
              message: attempt === 1 ? message : withReasons(message, issues, form),
              requestedSchema: (attempt === 1 || !lowered.identity
                ? lowered.requestedSchema
                : keepAnswers(form, revision, previous, issues)) as never,
            },
            options(),
          ),
        );
        const verdict = await judge(
          form,
          response,
          lowered.identity ? undefined : lowered.mapAnswer,
        );
        if ('result' in verdict) return verdict.result as never;
        issues = verdict.issues;
        previous = response;
      }
      throw rejected(key, limits.maxAttempts, issues);
    },
    async all(specs) {
      const keys = Object.keys(specs);
      if (keys.length > limits.maxKeysPerRound) {
        throw new AskUsageError(
          `A handler asked for ${keys.length} inputs in one round; the limit is ${limits.maxKeysPerRound} (limits.maxKeysPerRound).`,
        );
      }
      const results = await Promise.all(
        keys.map((k) => {
          const spec = specs[k] as AllSpec;
          if ('form' in spec) return ask.form(k, spec.form, spec);
          if ('sample' in spec) return ask.sample(k, spec.sample);
          return ask.roots(k);
        }),
      );
      return Object.fromEntries(keys.map((k, i) => [k, results[i]])) as never;
    },
    async url(key, request) {
      checkKey(key);
      if (!declares(caps, 'url')) throw new ElicitationUnsupportedError('URL elicitation');
      const response = await waitFor(key, () =>
        ctx.mcpReq.elicitInput(
          { mode: 'url', message: request.message, url: request.url, elicitationId: randomUUID() },
          options(),
        ),
      );
      const action = (response as { action?: unknown }).action;
      return { action: action === 'accept' || action === 'decline' ? action : 'cancel' };
    },
    async step(key, fn) {
      checkKey(key);
      return fn();
    },
    async once(key, fn) {
      checkKey(key);
      return fn();
    },
    async sample(key, params) {
      checkKey(key);
      if (!declares(caps, 'sampling')) throw new ElicitationUnsupportedError('sampling');
      return (await waitFor(key, () => ctx.mcpReq.requestSampling(params, options()))) as never;
    },
    async roots(key) {
      checkKey(key);
      if (!declares(caps, 'roots')) throw new ElicitationUnsupportedError('roots');
      return (await waitFor(key, () =>
        ctx.mcpReq.send({ method: 'roots/list' } as never, options() as never),
      )) as never;
    },
  };
  return ask;
}
