/**
 * The push engine: 2025-06-18 / 2025-11-25 sessions, where the server sends each request through
 * the SDK session and waits for the answer (answers and steps are kept for the call's length).
 */
import { randomUUID } from 'node:crypto';
import {
  type ClientCapabilities,
  type InputRequest,
  type McpServer,
  SdkError,
  SdkErrorCode,
  type ServerContext,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
import { type Ask, type AskLimits, declares } from './ask.ts';
import { createAsk } from './asks.ts';
import type { Engine } from './engine.ts';
import { AskAbandonedError, AskTimeoutError, ElicitationUnsupportedError } from './errors.ts';
import { progressKeepAlive } from './keep-alive.ts';
import type { PendingAsks } from './pending.ts';
import {
  ConnectNotConfiguredError,
  type ConnectSettings,
  claimRecentCompletion,
  linkMessage,
  waitForRecord,
} from './url-mode.ts';
import type { RecordPurpose } from './url-port.ts';

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
  const keepAlive = progressKeepAlive(ctx, limits.progressEveryMs);
  /**
   * Every wait for the client holds a slot (refused past the caps, never queued). A timeout is
   * the person not answering; an abort or a closed connection is the client going away (it
   * cancelled, hung up, or its session closed): both end as typed errors the runner reports.
   */
  const waitFor = async <T>(key: string, send: () => Promise<T>): Promise<T> => {
    if (signal.aborted) throw new AskAbandonedError(key, { cause: signal.reason });
    const release = extras.pending.acquire(waiter);
    // The client's request timeout may be shorter than a person takes: progress keeps it open.
    const beating = keepAlive.hold();
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
      beating();
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
    if (!declares(caps, 'url', revision)) throw new ElicitationUnsupportedError('URL elicitation');
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

  // What this call has settled (answers `a`, invalid counts `t`, step results `s`), made on first
  // use: most calls wait on one ask, and each waiting call's memory counts (see docs/server.md).
  let memo: Map<string, unknown> | undefined;
  const memoGet = (kind: 'a' | 't' | 's', key: string) => memo?.get(`${kind}\u0000${key}`);
  const memoHas = (kind: 'a' | 't' | 's', key: string) => memo?.has(`${kind}\u0000${key}`) === true;
  const memoSet = (kind: 'a' | 't' | 's', key: string, value: unknown) =>
    void (memo ??= new Map()).set(`${kind}\u0000${key}`, value);

  /** One request through the SDK session, waited for under the caps. */
  function send(key: string, request: InputRequest): Promise<unknown> {
    const params = request.params as Record<string, unknown>;
    if (request.method === 'sampling/createMessage')
      return waitFor(key, () => ctx.mcpReq.requestSampling(params as never, options()));
    if (request.method === 'roots/list')
      return waitFor(key, () =>
        ctx.mcpReq.send({ method: 'roots/list' } as never, options() as never),
      );
    // A URL elicitation needs an id on 2025-11-25; ours are random.
    const withId =
      params.mode === 'url' && params.elicitationId === undefined
        ? { ...params, elicitationId: randomUUID() }
        : params;
    return waitFor(key, () => ctx.mcpReq.elicitInput(withId as never, options()));
  }

  const engine: Engine = {
    revision,
    caps,
    limits,
    recall: (key) => memoGet('a', key),
    remember: (key, response) => memoSet('a', key, response),
    exchange: send,
    failed(key) {
      const n = ((memoGet('t', key) as number | undefined) ?? 0) + 1;
      memoSet('t', key, n);
      return n;
    },
    async step(key, run) {
      // One call cannot be replayed: a step key asked twice gives its first result.
      if (memoHas('s', key)) return memoGet('s', key);
      const value = await run();
      memoSet('s', key, value);
      return value;
    },
    round: (asks) => Promise.all(asks.map((a) => a())),
    urlStep,
    background: async () => {},
    async mustStep(purpose, subject, fresh) {
      if (!fresh) return false;
      // After a -32042 the retried call claims the completion it caused, once.
      const settings = extras.connect;
      const claimed =
        purpose === 'secret' &&
        settings?.legacyMode === 'error' &&
        (await claimRecentCompletion(settings, extras.principal, purpose, subject));
      return !claimed;
    },
  };
  return createAsk(engine, extras.principal, extras.connect);
}
