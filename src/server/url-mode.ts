/**
 * What `ask.connect` and `ask.secret` share on both eras: finding a stored token or secret,
 * creating the principal-bound record behind a connect link, waiting for it to complete, and
 * the authorised fetch handed to the handler. Provider tokens stay in the vault and in this
 * process: they never reach the MCP client, and the client's own bearer token is never sent.
 */
import { ElicitError } from '../errors.ts';
import { ELICIT_ASK_USAGE, ELICIT_CONNECT_NOT_CONFIGURED } from '../kernel/error-codes.ts';
import type { Faults } from './faults.ts';
import type { Connection, RecordPurpose, UrlPort, UrlRecord } from './url-port.ts';

export type { Connection } from './url-port.ts';

/**
 * How a URL step ended; a completed one names its record, whose saved value (vault entry
 * `["record","<id>"]`) is what this request reads: not whatever the principal saved since.
 */
export type UrlStepResult =
  | { readonly outcome: 'complete'; readonly record: string }
  | { readonly outcome: 'decline' | 'cancel' };

export interface ConnectSettings {
  /** The web side: createConnectStack(...) or createConnectApp(...) from elicit/connect. */
  readonly app: UrlPort;
  /**
   * 2025-11-25 sessions: `in-call` sends the URL elicitation and waits for completion inside the
   * tool call (default); `error` answers -32042 so the client retries when the page is done.
   */
  readonly legacyMode?: 'in-call' | 'error';
  /** How long a call waits for the browser step; default 10 minutes. */
  readonly waitMs?: number;
}

export type ConnectResult =
  | { readonly action: 'accept'; readonly connection: Connection }
  | { readonly action: 'decline' | 'cancel' };
export type SecretResult =
  | { readonly action: 'accept'; readonly value: string }
  | { readonly action: 'decline' | 'cancel' };

export class ConnectNotConfiguredError extends ElicitError {
  constructor(what: string) {
    super(
      ELICIT_CONNECT_NOT_CONFIGURED,
      `${what} needs the connect pages: pass connect: { app: createConnectStack(...) } to createServer.`,
    );
  }
}

/**
 * The authorised fetch for the principal's tokens at `provider` (implemented by the port); with
 * `record`, the tokens that record's connect page obtained, while they are kept.
 */
export function connection(
  settings: ConnectSettings,
  principal: string,
  provider: string,
  record?: string,
): Connection {
  return settings.app.connection(principal, provider, record);
}

/** How often a wait reads its record: normally, and while the store is failing (to resume fast). */
const POLL_MS = 2000;
const RETRY_MS = 250;

/**
 * Resolves when the record leaves `pending` (via the bus, with a store check against races),
 * or with `timeout`. Never rejects: a store that fails while the person is on the page is told
 * once to `faults` and read again every quarter second, so the wait goes on as soon as the
 * store is back; the wait's own bound (`ms`, the signal) still ends it.
 */
export function waitForRecord(
  settings: ConnectSettings,
  id: string,
  ms: number,
  faults: Faults,
  signal?: AbortSignal,
): Promise<UrlRecord['status'] | 'timeout'> {
  const { records, bus } = settings.app;
  return new Promise((resolve) => {
    let settled = false;
    let poll: ReturnType<typeof setTimeout> | undefined;
    const finish = (status: UrlRecord['status'] | 'timeout') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(poll);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve(status);
    };
    const check = async () => {
      poll = undefined;
      let next = POLL_MS;
      try {
        const r = await records.get(id);
        faults.recovered(WAIT);
        if (r === undefined) finish('expired');
        else if (r.status !== 'pending') finish(r.status);
      } catch (error) {
        faults.failed(WAIT, error);
        next = RETRY_MS;
      }
      // The bus is the fast path; a slow poll covers a missed event (e.g. a replica restart).
      if (!settled) poll = setTimeout(() => void check(), next);
    };
    const unsubscribe = bus.subscribe((e) => {
      if (e.id === id) finish(e.status);
    });
    const onAbort = () => finish('timeout');
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish('timeout'), ms);
    void check();
  });
}

const WAIT = 'A URL-mode wait reading its record';

export function linkMessage(
  purpose: RecordPurpose,
  label: string,
  message: string | undefined,
): string {
  return (
    message ??
    (purpose === 'connect'
      ? `Connect ${label} so this tool can use it for you.`
      : `Enter ${label} on the server's secure page (it is never shown to the assistant).`)
  );
}

/**
 * After a -32042, the retried call cannot remember that it just asked: a record completed for
 * the same principal and subject since then counts once as the fresh answer. Its id, or
 * undefined when there is none left to claim.
 */
export async function claimRecentCompletion(
  settings: ConnectSettings,
  principal: string,
  purpose: RecordPurpose,
  subject: string,
): Promise<string | undefined> {
  const { records } = settings.app;
  for (const r of await records.completed(principal, purpose, subject)) {
    if (await records.claim(r.id)) return r.id;
  }
  return undefined;
}

type UrlStep = (
  purpose: RecordPurpose,
  subject: string,
  label: string,
  description: string | undefined,
  message: string | undefined,
) => Promise<UrlStepResult>;

/** ask.connect on either engine: `forceStep` when a flow is already under way in this request. */
export async function askConnect(
  settings: ConnectSettings | undefined,
  principal: string,
  provider: string,
  opts: { message?: string; label?: string; description?: string } | undefined,
  forceStep: boolean,
  urlStep: UrlStep,
): Promise<ConnectResult> {
  if (settings === undefined) throw new ConnectNotConfiguredError('ask.connect');
  if (!settings.app.hasProvider(provider)) {
    throw new ElicitError(
      ELICIT_ASK_USAGE,
      `ask.connect: no provider named ${JSON.stringify(provider)} is configured.`,
    );
  }
  if (forceStep || (await settings.app.readEntry(principal, 'connect', provider)) === undefined) {
    const step = await urlStep(
      'connect',
      provider,
      opts?.label ?? provider,
      opts?.description,
      opts?.message,
    );
    if (step.outcome !== 'complete') return { action: step.outcome };
    // The account this request's page connected, whatever another request connected since.
    return { action: 'accept', connection: connection(settings, principal, provider, step.record) };
  }
  return { action: 'accept', connection: connection(settings, principal, provider) };
}

/** ask.secret on either engine: `forceStep` asks even when a value is stored. */
export async function askSecret(
  settings: ConnectSettings | undefined,
  principal: string,
  key: string,
  opts: { label: string; description?: string; message?: string },
  forceStep: boolean,
  urlStep: UrlStep,
): Promise<SecretResult> {
  if (settings === undefined) throw new ConnectNotConfiguredError('ask.secret');
  const read = async (record?: string) => {
    const stored = await settings.app.readEntry(principal, 'secret', key, record);
    return typeof stored === 'string' ? stored : undefined;
  };
  let value = forceStep ? undefined : await read();
  if (value === undefined) {
    const step = await urlStep('secret', key, opts.label, opts.description, opts.message);
    if (step.outcome !== 'complete') return { action: step.outcome };
    // The value this request's page saved, not the last one saved under the name; once its
    // record's copy is gone (long after), the principal's stored value.
    value = (await read(step.record)) ?? (await read());
  }
  return value === undefined ? { action: 'cancel' } : { action: 'accept', value };
}
