/**
 * One connection to the server: SDK Client + elicitation + transport, built again on reconnect
 * (a restarted HTTP server forgets the session; a crashed stdio child is started afresh).
 */

import { Client, type StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Renderer, RootList } from '../../client/index.ts';
import {
  attachElicitation,
  attachSampling,
  type ElicitClient,
  type SamplingOptions,
} from '../../client/index.ts';
import { ELICIT_HOST_CONNECT, ELICIT_HOST_SIGNIN } from '../../kernel/error-codes.ts';
import type { EraChoice } from '../../kernel/revision.ts';
import { MODERN_REVISION } from '../../kernel/revision.ts';
import { TerminalAuthProvider } from '../auth.ts';
import { openInBrowser } from '../open.ts';
import { type ChildState, describeFailure, HostError } from './errors.ts';
import type { HostLimits } from './limits.ts';
import {
  type AuthProvider,
  createTransport,
  type HostTransport,
  type Target,
} from './transport.ts';

export type { EraChoice };

export type ListKind = 'tools' | 'prompts' | 'resources';

export interface LinkOptions {
  readonly target: Target;
  readonly era: EraChoice;
  readonly renderer: Renderer;
  readonly limits: HostLimits;
  readonly env?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly authProvider?: AuthProvider;
  readonly onStderr?: (line: string) => void;
  /** `notifications/message` from the server. */
  readonly onLog?: (params: { level: string; logger?: string; data: unknown }) => void;
  /** A list changed (already refreshed). */
  readonly onListChanged?: (kind: ListKind, items: unknown[]) => void;
  /** The server wants a sign-in and the browser was asked to open (see TerminalAuthProvider). */
  readonly onSigningIn?: () => void;
  /** The transport closed without us asking (server exited or went away). */
  readonly onClosed?: () => void;
  /** Sampling: the person writes the reply (declined without `reply`). */
  readonly sampling?: SamplingOptions;
  /** Roots (`--root`, changed from the menu): one list across reconnects. */
  readonly roots?: RootList;
}

export class Link {
  readonly #o: LinkOptions;
  client!: Client;
  elicit!: ElicitClient;
  #transport: HostTransport | undefined;
  #closing = false;
  /** False once the transport closed; a reconnect is needed before the next request. */
  alive = false;

  constructor(options: LinkOptions) {
    this.#o = options;
  }

  get isStdio(): boolean {
    return !('url' in this.#o.target);
  }

  child(): ChildState | undefined {
    return this.#transport?.child();
  }

  /**
   * Connects within the connect timeout; on failure the error names the cause. A server that
   * wants a sign-in gets one: the browser opens, and once it comes back the link connects again.
   */
  async open(signedIn = false): Promise<void> {
    const o = this.#o;
    const changed = (kind: ListKind) => ({
      onChanged: (error: Error | null, items: unknown[] | null) => {
        if (error === null && items !== null) o.onListChanged?.(kind, items);
      },
    });
    const client = new Client(
      { name: 'elicit', version: '0.1.0' },
      {
        listChanged: {
          tools: changed('tools'),
          prompts: changed('prompts'),
          resources: changed('resources'),
        },
        // Each round of a 2026-07-28 call may be a person finishing a browser step.
        inputRequired: { maxRounds: o.limits.urlRetries + 10 },
      },
    );
    const elicit = attachElicitation(client, {
      renderer: o.renderer,
      openUrl: openInBrowser,
      completionTimeoutMs: o.limits.urlWaitMs,
      maxUrlRetries: o.limits.urlRetries,
      // Long tools may run as tasks: followed to their end, questions and all.
      tasks: { limits: o.limits.tasks },
    });
    attachSampling(client, o.sampling);
    o.roots?.attach(client);
    client.setVersionNegotiation({
      mode: o.era === 'auto' ? 'auto' : o.era === 'legacy' ? 'legacy' : { pin: MODERN_REVISION },
    });
    client.setNotificationHandler('notifications/message', (n) => {
      o.onLog?.(n.params as { level: string; logger?: string; data: unknown });
    });
    const transport = createTransport(o.target, {
      env: o.env,
      headers: o.headers,
      authProvider: o.authProvider,
      onStderr: o.onStderr,
      limits: o.limits,
    });
    this.#transport = transport;
    this.#closing = false;
    const signal = AbortSignal.timeout(o.limits.connectTimeoutMs);
    try {
      await client.connect(transport.transport, {
        signal,
        timeout: o.limits.connectTimeoutMs,
      });
    } catch (error) {
      this.#closing = true;
      await client.close().catch(() => {});
      const auth = o.authProvider;
      if (auth instanceof TerminalAuthProvider && auth.signingIn && !signedIn) {
        o.onSigningIn?.();
        try {
          await auth.finishSignIn(transport.transport as StreamableHTTPClientTransport);
        } catch (signInError) {
          throw new HostError(
            ELICIT_HOST_SIGNIN,
            `Could not sign in: ${(signInError as Error).message}`,
            { cause: signInError },
          );
        }
        return this.open(true);
      }
      // Let the child's exit be recorded before it is described.
      await new Promise((r) => setTimeout(r, 50));
      const timedOut =
        signal.aborted ||
        (error as { code?: unknown }).code === 'REQUEST_TIMEOUT' ||
        (error as Error).name === 'TimeoutError';
      const child = transport.child();
      const cause =
        timedOut && child?.exitCode == null && child?.signal == null
          ? `no answer within ${Math.round(o.limits.connectTimeoutMs / 1000)} s (--connect-timeout)${
              child === undefined
                ? ''
                : child.stderr.length > 0
                  ? describeFailure(new Error(''), child).replace(/^[^\n]*/, '')
                  : '; the server printed nothing on stderr'
            }`
          : describeFailure(error, child);
      throw new HostError(ELICIT_HOST_CONNECT, `Could not connect: ${cause}`, { cause: error });
    }
    transport.transport.onclose = ((previous) => () => {
      previous?.();
      this.alive = false;
      if (!this.#closing) o.onClosed?.();
    })(transport.transport.onclose);
    this.client = client;
    this.elicit = elicit;
    this.alive = true;
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.alive = false;
    await this.client?.close().catch(() => {});
  }

  async reopen(): Promise<void> {
    await this.close();
    await this.open();
  }
}
