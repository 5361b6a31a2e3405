/** Errors a handler can meet through `ask`. Each has a stable code and says what to do. */
import { ElicitError } from '../errors.ts';

/** The client did not declare what this ask needs (form or URL elicitation, sampling, roots). */
export class ElicitationUnsupportedError extends ElicitError {
  readonly capability: string;
  constructor(capability: string) {
    super(
      'ELICIT_CLIENT_UNSUPPORTED',
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
      'ELICIT_ANSWER_INVALID',
      `The answer to "${key}" was still invalid after ${attempts} attempts (${reasons}). Nothing was done.`,
    );
    this.key = key;
  }
}

/** A one-time step was attempted twice with the same request state. */
export class ReplayError extends ElicitError {
  constructor(key: string) {
    super(
      'ELICIT_REPLAYED',
      `The one-time step "${key}" already ran for this request; it will not run again. Start the request over.`,
    );
  }
}

/** The handler asked for input in more rounds than allowed. */
export class RoundsExceededError extends ElicitError {
  constructor(max: number) {
    super(
      'ELICIT_TOO_MANY_ROUNDS',
      `This request needed more than ${max} rounds of input; it was stopped. Start it over.`,
    );
  }
}

/** An ask was called with a bad key or form (a programming error in the handler). */
export class AskUsageError extends ElicitError {
  constructor(message: string) {
    super('ELICIT_ASK_USAGE', message);
  }
}

/** Nobody answered within the ask timeout (legacy sessions, where the server waits). */
export class AskTimeoutError extends ElicitError {
  constructor(key: string, timeoutMs: number) {
    super(
      'ELICIT_TIMEOUT',
      `No answer to "${key}" within ${Math.round(timeoutMs / 1000)} s; nothing was done. Try again when you are ready.`,
    );
  }
}
