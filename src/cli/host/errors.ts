/**
 * Failures of `elicit host` named by their cause: the network's error codes (connection
 * refused, DNS, TLS), HTTP statuses, timeouts, and a stdio server's exit code with its last
 * stderr lines, instead of "fetch failed" or "Connection closed".
 */

import { inert } from '../../client/index.ts';
import { ElicitError } from '../../errors.ts';
import { ELICIT_HOST_CANCELLED } from '../../kernel/error-codes.ts';

/** A connect or call failure with its cause in words. */
export class HostError extends ElicitError {}

/** The person cancelled the call (Ctrl-C, or Cancel while a URL-mode page was open). */
export class Cancelled extends ElicitError {
  constructor() {
    super(ELICIT_HOST_CANCELLED, 'The call was cancelled; the server was told to stop.');
  }
}

/** What the host knows about a stdio child when something fails. */
export interface ChildState {
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The last stderr lines, oldest first. */
  readonly stderr: readonly string[];
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the server running, on this port?)',
  ECONNRESET: 'the connection was reset by the server',
  EPIPE: 'the connection was closed by the server',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection was closed by the server',
  UND_ERR_HEADERS_TIMEOUT: 'the server accepted the connection but sent no answer',
  ENOTFOUND: 'DNS: the host name does not resolve (check the spelling)',
  EAI_AGAIN: 'DNS: the host name could not be resolved right now (check your network)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  CERT_HAS_EXPIRED: 'TLS: the server certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS: the server certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS: a self-signed certificate is in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS: the server certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS: the certificate issuer is unknown here',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS: the certificate does not name this host',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS: the server does not speak TLS on this port (try http://)',
  EPROTO: 'TLS: the handshake failed',
};

const HTTP: Record<number, string> = {
  401: 'the server requires authorization (HTTP 401)',
  403: 'the server denied access (HTTP 403)',
  404: 'no MCP endpoint at this address, or the session is gone (HTTP 404)',
  405: 'the server does not accept MCP requests at this address (HTTP 405)',
  502: 'a proxy could not reach the server (HTTP 502)',
  503: 'the server is unavailable (HTTP 503)',
};

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The error itself and its causes, innermost last, bounded. */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error, i = 0; e !== undefined && e !== null && i < 8; i++) {
    out.push(e);
    const next = (e as { cause?: unknown }).cause;
    if (next === e) break;
    e = next;
    // AggregateError (happy eyeballs) carries the per-address failures.
    const errors = (e as { errors?: unknown } | null)?.errors;
    if (Array.isArray(errors) && errors[0] !== undefined) out.push(errors[0]);
  }
  return out;
}

/** One line naming why `error` happened; `child` adds a stdio server's exit and stderr. */
export function describeFailure(error: unknown, child?: ChildState): string {
  const reasons: string[] = [];
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (
      code === 'ENOENT' &&
      child !== undefined &&
      (e as { syscall?: string }).syscall?.startsWith('spawn')
    ) {
      reasons.push(`command not found: ${child.command}`);
      break;
    }
    if (code === 'EACCES' && child !== undefined) {
      reasons.push(`permission denied running ${child.command}`);
      break;
    }
    if (code !== undefined && NETWORK[code] !== undefined) {
      reasons.push(NETWORK[code]);
      break;
    }
    const status =
      (e as { status?: unknown; data?: { status?: unknown } }).status ??
      (e as { data?: { status?: unknown } }).data?.status;
    if (typeof status === 'number') {
      reasons.push(HTTP[status] ?? `the server answered HTTP ${status}`);
      break;
    }
    if (code === 'REQUEST_TIMEOUT' || (e as Error).name === 'TimeoutError') {
      reasons.push('no answer in time');
      break;
    }
  }
  if (child !== undefined && (child.exitCode !== null || child.signal !== null)) {
    reasons.push(
      child.signal !== null
        ? `the server process was killed by ${child.signal}`
        : `the server process exited with code ${child.exitCode}`,
    );
  }
  if (reasons.length === 0)
    reasons.push(inert((error as Error)?.message ?? String(error), 300, false));
  let text = reasons.join('; ');
  if (child !== undefined && child.stderr.length > 0)
    text += `\n  its last stderr lines:\n${child.stderr.map((l) => `  │ ${inert(l, 300, false)}`).join('\n')}`;
  return text;
}

/** True when the server no longer knows the session (restarted): reconnect and re-initialise. */
export function isSessionGone(error: unknown): boolean {
  for (const e of chain(error)) {
    const status =
      (e as { status?: unknown }).status ?? (e as { data?: { status?: unknown } }).data?.status;
    if (status === 404) return true;
    const message = (e as Error)?.message ?? '';
    if (
      /session not found|no valid session|unknown session|session.*(expired|terminated)/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

/** True when the transport is gone (server down, child exited): the link must be rebuilt. */
export function isDisconnected(error: unknown): boolean {
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (code === 'CONNECTION_CLOSED' || code === 'NOT_CONNECTED') return true;
    if (
      code !== undefined &&
      ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(code)
    )
      return true;
    if (/^(Not connected|Connection closed)/i.test((e as Error)?.message ?? '')) return true;
  }
  return false;
}

/** True when the call was cancelled on purpose (Ctrl-C, `c`), not failed. */
export function isAbort(error: unknown): boolean {
  return chain(error).some((e) => (e as Error)?.name === 'AbortError');
}
