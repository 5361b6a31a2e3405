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
import { LEGACY_REVISION } from '../../kernel/revision.ts';
import { resultValidator } from '../../kernel/sdk-seams.ts';
import type { Ask, AskLimits } from '../ask.ts';
import { createAsk } from '../asks.ts';
import { declares } from '../capabilities.ts';
import { AskAbandonedError, AskTimeoutError, ElicitationUnsupportedError } from '../errors.ts';
import type { Faults } from '../faults.ts';
import {
  createQuestion,
  InboxExpiredError,
  type InboxRequest,
  inboxCall,
  type ResolvedInbox,
  responseOf,
  waitForAnswer,
  waitingText,
} from '../inbox.ts';
import { type KeepAlive, progressKeepAlive } from '../keep-alive.ts';
import type { PendingAsks } from '../pending.ts';
import {
  ConnectNotConfiguredError,
  type ConnectSettings,
  claimRecentCompletion,
  linkMessage,
  waitForRecord,
} from '../url-mode.ts';
import type { CompletionPort, RecordPurpose } from '../url-port.ts';
import type { Engine, Receiver, UrlStepResult } from './contract.ts';
import { Withdrawal } from './withdrawal.ts';

/** What a push engine needs from the server (the runner's server is one). */
export interface PushServer {
  readonly limits: AskLimits;
  /** The server's count of waiting asks; a call's session is its McpServer. */
  readonly pending: PendingAsks;
  readonly options: { readonly connect?: ConnectSettings | undefined };
  /** Where failures of work outside the request (a URL-mode wait's poll) are told. */
  readonly faults: Faults;
  /** The inbox for forms the client cannot show (createServer's `inbox`), if any. */
  readonly inbox?: ResolvedInbox | undefined;
}

/** One pushed call: its `ask`, and `end`, called once the call has ended (by any path). */
export interface PushedCall {
  /** The `ask` handed to the call's handler (made once, held by the handler, not here). */
  ask(): Ask;
  /** The call is over: whatever it still has on the person's screen is withdrawn. */
  end(): void;
}

export function pushCall(
  ctx: ServerContext,
  mcp: McpServer,
  server: PushServer,
  principal: string,
  name = '',
): PushedCall {
  // The engine is the call: no object nor closure beside it for a waiting call to hold.
  return new PushEngine(ctx, mcp, server, principal, name);
}

/**
 * The push engine of one call. A class, so its methods are shared on the prototype: a waiting
 * call holds one object, not a closure per method (see asks.ts on why that counts). It is also
 * the call's Withdrawal (withdrawal.ts), the signal its requests go out with, rather than
 * holding one beside it.
 */
class PushEngine extends Withdrawal implements Engine, PushedCall {
  readonly #ctx: ServerContext;
  readonly #mcp: McpServer;
  readonly #server: PushServer;
  readonly #principal: string;
  /** The tool, prompt or resource called (the inbox page names it). */
  readonly #name: string;
  readonly #keepAlive: KeepAlive;
  // What this call has settled (answers `a`, invalid counts `t`, step results `s`), made on first
  // use: most calls wait on one ask.
  #memo: Map<string, unknown> | undefined;
  #ended = false;

  constructor(
    ctx: ServerContext,
    mcp: McpServer,
    server: PushServer,
    principal: string,
    name: string,
  ) {
    super(ctx.mcpReq.signal);
    this.#ctx = ctx;
    this.#mcp = mcp;
    this.#server = server;
    this.#principal = principal;
    this.#name = name;
    // Made now, not at the first wait: it tracks the handler's own progress from the start.
    this.#keepAlive = progressKeepAlive(ctx, server.limits.progressEveryMs);
  }

  ask(): Ask {
    return createAsk(this, this.#principal, this.#server.options.connect, this.#ctx);
  }

  // Read from the session when asked, not kept: a waiting call holds as little as it can.
  get caps(): ClientCapabilities | undefined {
    return this.#mcp.server.getClientCapabilities();
  }

  get revision(): string {
    return this.#mcp.server.getNegotiatedProtocolVersion() ?? LEGACY_REVISION;
  }

  get limits(): AskLimits {
    return this.#server.limits;
  }

  #memoGet(kind: 'a' | 't' | 's', key: string): unknown {
    return this.#memo?.get(`${kind}\u0000${key}`);
  }
  #memoSet(kind: 'a' | 't' | 's', key: string, value: unknown): void {
    (this.#memo ??= new Map()).set(`${kind}\u0000${key}`, value);
  }

  /**
   * Every wait for the client holds a slot (refused past the caps, never queued). A timeout is
   * the person not answering; an abort or a closed connection is the client going away (it
   * cancelled, hung up, or its session closed): both end as typed errors the runner reports.
   */
  #waitFor<T>(key: string, send: () => Promise<T>, receiver?: Receiver): Promise<unknown> {
    const { signal } = this.#ctx.mcpReq;
    if (signal.aborted) return Promise.reject(new AskAbandonedError(key, { cause: signal.reason }));
    // Nothing is shown for a call that has already ended (an ask left running after it).
    if (this.#ended)
      return Promise.reject(new AskAbandonedError(key, { cause: new Error('the call has ended') }));
    try {
      this.#server.pending.take(this.#principal, this.#mcp);
    } catch (error) {
      return Promise.reject(error);
    }
    // The client's request timeout may be shorter than a person takes: progress keeps it open.
    const beating = this.#keepAlive.hold();
    // A promise chain, not an async function, and the slot given back by a method rather than a
    // closure per wait: thousands of these may wait at once.
    let sent: Promise<T>;
    try {
      sent = send();
    } catch (error) {
      this.#done(beating);
      return Promise.reject(this.#failure(key, error));
    }
    return sent.then(
      (value) => {
        this.#done(beating);
        return receiver === undefined ? value : receiver.received(value);
      },
      (error: unknown) => {
        this.#done(beating);
        throw this.#failure(key, error);
      },
    );
  }

  #done(beating: () => void): void {
    beating();
    this.#server.pending.give(this.#principal, this.#mcp);
  }

  /** What a failed wait means: the client went away, the person did not answer, or as thrown. */
  #failure(key: string, error: unknown): unknown {
    if (
      this.#ctx.mcpReq.signal.aborted ||
      this.#ended ||
      (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
    )
      return new AskAbandonedError(key, { cause: error });
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
      return new AskTimeoutError(key, this.limits.timeoutMs);
    return error;
  }

  #options() {
    const { mcpReq } = this.#ctx;
    return {
      relatedRequestId: mcpReq.id,
      timeout: this.limits.timeoutMs,
      signal: this.#withdrawSignal(),
    };
  }

  /**
   * The signal this call's requests go out with (this engine): aborted with the call, or by a
   * withdrawal. Seams requestSignal and callAborts (kernel/sdk-seams.ts).
   */
  #withdrawSignal(): AbortSignal {
    this.hearFrom(this.#mcp.server, this.#ctx.mcpReq.id);
    return this.signal;
  }

  /** The call has ended: withdraw what is still on screen and send nothing more. */
  end(): void {
    this.#ended = true;
    this.withdraw('the call has ended');
  }

  recall(key: string): unknown {
    return this.#memoGet('a', key);
  }

  remember(key: string, response: unknown): void {
    this.#memoSet('a', key, response);
  }

  /** One request through the SDK session, waited for under the caps. */
  exchange(key: string, request: InputRequest, receiver?: Receiver): Promise<unknown> {
    const { mcpReq } = this.#ctx;
    const params = request.params as Record<string, unknown>;
    if (request.method === 'sampling/createMessage')
      return this.#waitFor(key, () => mcpReq.requestSampling(params as never, this.#options()));
    if (request.method === 'roots/list')
      return this.#waitFor(key, () => this.#send({ method: 'roots/list' }));
    // A URL elicitation needs an id on 2025-11-25; ours are random.
    const withId =
      params.mode === 'url' && params.elicitationId === undefined
        ? { ...params, elicitationId: randomUUID() }
        : params;
    return this.#elicit(key, withId, receiver);
  }

  /**
   * `elicitation/create` through the request's `send`: the SDK's `elicitInput` adds two awaits
   * around the same request, a capability check elicit makes before (`need`), and a content check
   * elicit makes after (`judge`). Every waiting call would hold those frames.
   */
  #elicit(key: string, params: Record<string, unknown>, receiver?: Receiver): Promise<unknown> {
    return this.#waitFor(key, () => this.#send({ method: 'elicitation/create', params }), receiver);
  }

  /**
   * A request through the call's `send`, its result checked by the SDK's codec through an
   * adapter made once (seam resultValidator), not one made (and probed) for each request.
   */
  #send(request: { method: string; params?: object }): Promise<unknown> {
    const { mcpReq } = this.#ctx;
    const server = this.#mcp.server;
    const check =
      server.getNegotiatedProtocolVersion() === undefined
        ? undefined
        : resultValidator(server, request.method);
    return check === undefined
      ? mcpReq.send(request as never, this.#options() as never)
      : mcpReq.send(request as never, check as never, this.#options() as never);
  }

  get inbox(): Engine['inbox'] {
    const inbox = this.#server.inbox;
    const bus = this.#server.options.connect?.app.bus;
    if (inbox === undefined || bus === undefined) return undefined;
    return (key, question, receiver) =>
      this.#waitFor(key, () => this.#inboxAnswer(inbox, bus, key, question), receiver);
  }

  /**
   * A form on the inbox page, the call held open meanwhile (under the caps, with progress on its
   * token: #waitFor). The link goes out once as progress and as a log message, so a host that
   * shows either tells the person where to answer. The question is withdrawn from the page when
   * it is answered, expires, or the call ends.
   */
  async #inboxAnswer(
    inbox: ResolvedInbox,
    bus: CompletionPort,
    key: string,
    question: InboxRequest,
  ): Promise<unknown> {
    const record = await createQuestion(
      inbox,
      this.#principal,
      inboxCall(randomUUID(), key),
      this.#name,
      question,
    );
    const url = inbox.port.url;
    const { mcpReq } = this.#ctx;
    const text = waitingText(url, false);
    const token = mcpReq._meta?.progressToken;
    if (token !== undefined)
      void mcpReq
        .notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 0, message: text },
        })
        .catch(() => {});
    void mcpReq.log('notice', text).catch(() => {});
    const got = await waitForAnswer(
      inbox,
      bus,
      record.id,
      inbox.waitMs,
      this.#server.faults,
      this.#withdrawSignal(),
    );
    await inbox.port.remove(record.id).catch(() => {});
    if (got !== 'timeout') return responseOf(got);
    if (mcpReq.signal.aborted || this.#ended)
      throw new AskAbandonedError(key, { cause: mcpReq.signal.reason });
    throw new InboxExpiredError(key, inbox.waitMs, url);
  }

  failed(key: string): number {
    const n = ((this.#memoGet('t', key) as number | undefined) ?? 0) + 1;
    this.#memoSet('t', key, n);
    return n;
  }

  async step(key: string, run: () => Promise<unknown>): Promise<unknown> {
    // One call cannot be replayed: a step key asked twice gives its first result.
    if (this.#memo?.has(`s\u0000${key}`) === true) return this.#memoGet('s', key);
    const value = await run();
    this.#memoSet('s', key, value);
    return value;
  }

  round<T>(asks: readonly (() => Promise<T>)[]): Promise<T[]> {
    // One member failing fails the round: the others' questions are withdrawn, not left open
    // on the screen with nowhere for their answers to go.
    return Promise.all(asks.map((a) => a())).catch((error: unknown) => {
      this.withdrawOut('another question of the same round failed');
      throw error;
    });
  }

  async background(): Promise<void> {}

  async mustStep(_purpose: RecordPurpose, _subject: string, fresh: boolean): Promise<boolean> {
    return fresh;
  }

  /**
   * One URL step behind a connect link: a record bound to the principal, then either the
   * in-call flow (URL elicitation, wait for completion, notify the client) or -32042.
   */
  async urlStep(
    purpose: RecordPurpose,
    subject: string,
    label: string,
    description: string | undefined,
    message: string | undefined,
  ): Promise<UrlStepResult> {
    const ctx = this.#ctx;
    const { mcpReq } = ctx;
    const settings = this.#server.options.connect;
    if (settings === undefined)
      throw new ConnectNotConfiguredError(purpose === 'connect' ? 'ask.connect' : 'ask.secret');
    // After a -32042 the retried call claims a completion (once): the one it caused, unless the
    // same principal left several for the same subject at once (see docs/url-mode.md).
    if (settings.legacyMode === 'error') {
      const claimed = await claimRecentCompletion(settings, this.#principal, purpose, subject);
      if (claimed !== undefined) return { outcome: 'complete', record: claimed };
    }
    // A client without URL mode: the link waits in the inbox where the server has one.
    const inbox = declares(this.caps, 'url', this.revision) ? undefined : this.inbox;
    if (inbox === undefined && !declares(this.caps, 'url', this.revision))
      throw new ElicitationUnsupportedError('URL elicitation');
    const record = await settings.app.records.create({
      principal: this.#principal,
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
    const errorMode = settings.legacyMode === 'error' && inbox === undefined;
    // A client without URL mode is not told of completions (the SDK refuses to make the notifier).
    const notify =
      inbox !== undefined
        ? async () => {}
        : this.#mcp.server.createElicitationCompletionNotifier(
            record.id,
            errorMode ? undefined : { relatedRequestId: mcpReq.id },
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
    const response =
      inbox !== undefined
        ? await inbox(
            subject,
            { message: text, url, elicitationId: record.id },
            { received: (r) => r },
          )
        : await this.#elicit(subject, {
            mode: 'url',
            message: text,
            url,
            elicitationId: record.id,
          });
    const action = (response as { action?: unknown }).action;
    if (action !== 'accept') {
      await settings.app.records.finish(record.id, 'declined');
      return { outcome: action === 'decline' ? 'decline' : 'cancel' };
    }
    const waitMs = settings.waitMs ?? this.limits.timeoutMs;
    const status = await this.#waitFor(subject, () =>
      waitForRecord(settings, record.id, waitMs, this.#server.faults, mcpReq.signal),
    );
    if (mcpReq.signal.aborted)
      throw new AskAbandonedError(subject, { cause: mcpReq.signal.reason });
    if (status === 'timeout') throw new AskTimeoutError(subject, waitMs);
    if (status === 'complete') {
      await notify().catch(() => {});
      return { outcome: 'complete', record: record.id };
    }
    return { outcome: status === 'declined' ? 'decline' : 'cancel' };
  }
}
