/** Errors a handler can meet through `ask`. Each has a stable code and says what to do. */

import { ElicitError } from '../errors.ts';
import {
  ELICIT_ANSWER_INVALID,
  ELICIT_ASK_ABANDONED,
  ELICIT_ASK_USAGE,
  ELICIT_CLIENT_UNSUPPORTED,
  ELICIT_LISTEN_ADDRESS,
  ELICIT_LISTEN_DENIED,
  ELICIT_LISTEN_FAILED,
  ELICIT_LISTEN_PORT_IN_USE,
  ELICIT_REPLAYED,
  ELICIT_SENSITIVE_FIELD,
  ELICIT_TIMEOUT,
  ELICIT_TOO_MANY_PENDING,
  ELICIT_TOO_MANY_ROUNDS,
  type ElicitErrorCode,
} from '../kernel/error-codes.ts';
import { LimitOptionError } from '../schema/index.ts';

export { LimitOptionError };

/** The client did not declare what this ask needs (form or URL elicitation, sampling, roots). */
export class ElicitationUnsupportedError extends ElicitError {
  readonly capability: string;
  constructor(capability: string) {
    super(
      ELICIT_CLIENT_UNSUPPORTED,
      `This tool needs to ask you for input, but the client did not declare ${capability} support. Use a client that supports it, or pass the values as arguments.`,
    );
    this.capability = capability;
  }
}

/** The answers kept failing validation after the allowed number of attempts. */
export class AnswerRejectedError extends ElicitError {
  readonly key: string;
  constructor(key: string, attempts: number, reasons: string) {
    super(
      ELICIT_ANSWER_INVALID,
      `The answer to "${key}" was still invalid after ${attempts} attempts (${reasons}). Nothing was done.`,
    );
    this.key = key;
  }
}

/** A one-time step was attempted twice with the same request state. */
export class ReplayError extends ElicitError {
  constructor(key: string) {
    super(
      ELICIT_REPLAYED,
      `The one-time step "${key}" already ran for this request; it will not run again. Start the request over.`,
    );
  }
}

/** The handler asked for input in more rounds than allowed. */
export class RoundsExceededError extends ElicitError {
  constructor(max: number) {
    super(
      ELICIT_TOO_MANY_ROUNDS,
      `This request needed more than ${max} rounds of input; it was stopped. Start it over.`,
    );
  }
}

/** An ask was called with a bad key or form (a programming error in the handler). */
export class AskUsageError extends ElicitError {
  constructor(message: string) {
    super(ELICIT_ASK_USAGE, message);
  }
}

/** Nobody answered within the ask timeout (legacy sessions, where the server waits). */
export class AskTimeoutError extends ElicitError {
  constructor(key: string, timeoutMs: number) {
    super(
      ELICIT_TIMEOUT,
      `No answer to "${key}" within ${Math.round(timeoutMs / 1000)} s; nothing was done. Try again when you are ready.`,
    );
  }
}

/** Where a cap on waiting asks was reached. */
export type PendingScope = 'session' | 'principal' | 'process';

const SCOPE_TEXT: Record<PendingScope, string> = {
  session: 'this session',
  principal: 'this user',
  process: 'this server',
};
const SCOPE_LIMIT: Record<PendingScope, string> = {
  session: 'maxPendingPerSession',
  principal: 'maxPendingPerPrincipal',
  process: 'maxPending',
};

/**
 * Too many asks are already waiting for an answer: this one is refused at once rather than
 * queued, so a client that never answers cannot hold the server's memory.
 */
export class TooManyPendingAsksError extends ElicitError {
  readonly scope: PendingScope;
  readonly limit: number;
  constructor(scope: PendingScope, limit: number) {
    super(
      ELICIT_TOO_MANY_PENDING,
      `${limit} requests for input are already waiting for an answer in ${SCOPE_TEXT[scope]} (limits.${SCOPE_LIMIT[scope]}); answer or cancel one of them, then try again.`,
    );
    this.scope = scope;
    this.limit = limit;
  }
}

/** The client went away (hung up, cancelled the call, or its session closed) while an ask waited. */
export class AskAbandonedError extends ElicitError {
  readonly key: string;
  constructor(key: string, options?: ErrorOptions) {
    super(
      ELICIT_ASK_ABANDONED,
      `The client stopped waiting for "${key}" (it cancelled the call, hung up or closed its session); nothing was done.`,
      options,
    );
    this.key = key;
  }
}

/**
 * A form field that looks like it asks for a password, secret, API key, token, card or account
 * number. The spec forbids that in form mode; ask.secret collects such values through URL mode.
 */
export class SensitiveFieldError extends ElicitError {
  readonly field: string;
  constructor(key: string, field: string, what: string) {
    super(
      ELICIT_SENSITIVE_FIELD,
      `ask.form('${key}'): field "${field}" looks like it asks for ${what}, which form mode must not do. Use ask.secret('${key}', …) to collect it through URL mode, or, if it is not one, list it in the options' allowSensitive: ['${field}'].`,
    );
    this.field = field;
  }
}

/** `listen()` could not listen: the port is taken, not allowed, or the address is not this machine's. */
export class ListenError extends ElicitError {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const [code, advice]: [ElicitErrorCode, string] =
      cause.code === 'EADDRINUSE'
        ? [
            ELICIT_LISTEN_PORT_IN_USE,
            `${where} is already in use; stop what runs there or pass another port (0 picks a free one).`,
          ]
        : cause.code === 'EACCES'
          ? [
              ELICIT_LISTEN_DENIED,
              `listening on ${where} is not allowed for this user; use a port above 1023.`,
            ]
          : cause.code === 'EADDRNOTAVAIL'
            ? [
                ELICIT_LISTEN_ADDRESS,
                `${host} is not an address of this machine; use 127.0.0.1 or one of its own addresses.`,
              ]
            : [ELICIT_LISTEN_FAILED, `could not listen on ${where}: ${cause.message}`];
    super(code, `listen(): ${advice}`, { cause });
  }
}

/** Throws LimitOptionError unless every value of `limits` is a positive integer. */
export function checkLimits(prefix: string, limits: object): void {
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
      throw new LimitOptionError(`${prefix}.${name}`, value);
  }
}
