/**
 * The gateway's side toward the server: one SDK `Client` over a transport the caller makes (the
 * CLI builds it with `elicit host`'s transport: headers, OAuth, env, stderr). It declares
 * every elicitation mode, sampling and roots, so a server shows all its tools; what it is asked
 * goes to the call that is waiting on the server (`HeldCall`) or, outside any call, to a host
 * session that can take it. The server's notifications go to `onNotification`.
 */

import {
  Client,
  type InputRequest,
  ProtocolError,
  ProtocolErrorCode,
  type Transport,
} from '@modelcontextprotocol/client';
import { TASKS_EXTENSION } from '../client/index.ts';
import { hookTaskResults } from '../client/internal.ts';
import { ElicitError } from '../errors.ts';
import { ELICIT_GATEWAY_UPSTREAM } from '../kernel/error-codes.ts';
import type { EraChoice } from '../kernel/revision.ts';
import { eraOf, LEGACY_REVISION, MODERN_REVISION } from '../kernel/revision.ts';
import type { HeldCall } from './held.ts';

/** The gateway could not reach the server it fronts, or the server went away. */
export class GatewayError extends ElicitError {}

/** The era the gateway speaks to the server it forwards to (`auto`: the newest both know). */
export type UpstreamEra = EraChoice;

export interface UpstreamOptions {
  /** A transport to the server; called once per connection. */
  readonly transport: () => Transport;
  /** The revision to speak: `auto` (default) probes 2026-07-28 and falls back to 2025-11-25. */
  readonly era?: UpstreamEra;
  /** Give up connecting after this long; default 30 s. */
  readonly connectTimeoutMs?: number;
  /**
   * Called when connecting failed, with the transport that failed: resolve true to connect once
   * more (the CLI finishes an OAuth sign-in in the browser here).
   */
  readonly retryConnect?: (transport: Transport, error: unknown) => Promise<boolean>;
}

/** A request the server sent: answered through a held call, or by a host session. */
export type Orphan = (request: InputRequest) => Promise<unknown>;

/** What the server said that every host session should hear. */
export interface UpstreamNotification {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** Accept any params, untouched (the SDK's typed form strips keywords such as `pattern`). */
const RAW_PARAMS = {
  params: {
    '~standard': {
      version: 1 as const,
      vendor: 'elicit',
      validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
    },
  },
};

/** A reply to a pushed question, or the reason it could not be answered. */
export type HeldAnswer = { readonly ok: unknown } | { readonly error: Error };

const PUSHED = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;
const FORWARDED_NOTIFICATIONS = [
  'notifications/message',
  'notifications/resources/updated',
  'notifications/elicitation/complete',
] as const;

export class Upstream {
  readonly client: Client;
  readonly #options: UpstreamOptions;
  /** Held calls in flight, oldest first: a pushed question goes to the oldest still running. */
  readonly #inFlight = new Set<HeldCall>();
  #orphan: Orphan | undefined;
  #listeners = new Set<(n: UpstreamNotification) => void>();
  /** URL elicitation ids the server said are complete (the latest 1000), and who waits for one. */
  readonly #completed = new Set<string>();
  readonly #completing = new Map<string, Set<() => void>>();

  constructor(options: UpstreamOptions) {
    this.#options = options;
    const changed = (method: string) => ({
      onChanged: (error: Error | null) => {
        if (error === null) this.#emit({ method });
      },
    });
    this.client = new Client(
      { name: 'elicit-gateway', version: '0.1.0' },
      {
        capabilities: {
          elicitation: { form: {}, url: {} },
          sampling: {},
          roots: { listChanged: true },
          // The tasks extension, for the tasks/* requests that follow a server's task; each call
          // says per request what the host can take (forward.ts), so a call is a task on the
          // server only when the host runs it as one.
          extensions: { [TASKS_EXTENSION]: {} },
        },
        listChanged: {
          tools: changed('notifications/tools/list_changed'),
          prompts: changed('notifications/prompts/list_changed'),
          resources: changed('notifications/resources/list_changed'),
        },
        // The gateway runs each round itself (forward.ts), so each question reaches its host.
        inputRequired: { autoFulfill: false },
      },
    );
    const era = options.era ?? 'auto';
    this.client.setVersionNegotiation({
      mode: era === 'auto' ? 'auto' : era === 'legacy' ? 'legacy' : { pin: MODERN_REVISION },
    });
    for (const method of PUSHED)
      this.client.setRequestHandler(
        method,
        RAW_PARAMS as never,
        ((params: unknown) => this.#route({ method, params } as InputRequest)) as never,
      );
    for (const method of FORWARDED_NOTIFICATIONS)
      this.client.setNotificationHandler(method, ((n: UpstreamNotification) => {
        if (method === 'notifications/elicitation/complete') this.#complete(n.params);
        this.#emit(n);
      }) as never);
  }

  /** Connects, within the connect timeout; the failure names the cause. */
  async connect(again = true): Promise<void> {
    const timeoutMs = this.#options.connectTimeoutMs ?? 30_000;
    const transport = this.#options.transport();
    try {
      await this.client.connect(transport, {
        signal: AbortSignal.timeout(timeoutMs),
        timeout: timeoutMs,
      });
      // A task the server makes of a call (the tasks extension) reaches forward.ts to follow.
      hookTaskResults(this.client);
    } catch (error) {
      if (again && (await this.#options.retryConnect?.(transport, error)) === true) {
        await this.client.close().catch(() => {});
        return this.connect(false);
      }
      throw new GatewayError(
        ELICIT_GATEWAY_UPSTREAM,
        `The gateway could not connect to its server: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  /** The revision the server speaks. */
  get revision(): string {
    return this.client.getNegotiatedProtocolVersion() ?? LEGACY_REVISION;
  }

  get modern(): boolean {
    return eraOf(this.revision) === 'modern';
  }

  /** Where requests the server sends outside any held call go (a host session). */
  set orphan(handler: Orphan | undefined) {
    this.#orphan = handler;
  }

  /** Listens to what the server announces (list changes, log messages, completions). */
  listen(listener: (n: UpstreamNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Questions the server pushes while `call` runs go to it (until it ends). */
  hold(call: HeldCall, running: Promise<unknown>): void {
    this.#inFlight.add(call);
    const done = () => this.#inFlight.delete(call);
    running.then(done, done);
  }

  /**
   * Resolves when the server says URL elicitation `id` is complete (at once if it already did),
   * or after `timeoutMs`, or when `signal` aborts; true only for a completion.
   */
  completion(id: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#completed.has(id)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiters = this.#completing.get(id) ?? new Set();
      const done = (value: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        waiters.delete(hit);
        if (waiters.size === 0) this.#completing.delete(id);
        resolve(value);
      };
      const hit = () => done(true);
      const aborted = () => done(false);
      const timer = setTimeout(aborted, timeoutMs);
      signal?.addEventListener('abort', aborted, { once: true });
      waiters.add(hit);
      this.#completing.set(id, waiters);
    });
  }

  #complete(params: Record<string, unknown> | undefined): void {
    const id = params?.elicitationId;
    if (typeof id !== 'string' || id.length > 256) return;
    this.#completed.add(id);
    if (this.#completed.size > 1000)
      this.#completed.delete(this.#completed.values().next().value as string);
    for (const hit of [...(this.#completing.get(id) ?? [])]) hit();
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => {});
  }

  #emit(n: UpstreamNotification): void {
    for (const listener of this.#listeners) listener(n);
  }

  /**
   * A 2025 server does not say which call a question belongs to. With one call at a time it is
   * that call's; with several, the oldest call that is not waiting for an answer already (a
   * handler asks one thing at a time), else the call that asked last (a handler asking several
   * things at once pushes them together, while a call left waiting by a host that went away
   * asked long ago); outside any call, a host session's.
   */
  async #route(request: InputRequest): Promise<unknown> {
    let call: HeldCall | undefined;
    let fallback: HeldCall | undefined;
    for (const c of this.#inFlight) {
      if (c.ended) continue;
      if (fallback === undefined || c.lastAsked > fallback.lastAsked) fallback = c;
      if (!c.waiting) {
        call = c;
        break;
      }
    }
    call ??= fallback;
    if (call === undefined) {
      if (this.#orphan === undefined)
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `No host can answer ${request.method} outside a call through this gateway.`,
        );
      return this.#orphan(request);
    }
    const answer = (await call.question(request)) as HeldAnswer;
    if ('error' in answer) throw answer.error;
    return answer.ok;
  }
}
