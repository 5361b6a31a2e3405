import { ELICIT_INTERNAL, type ElicitErrorCode } from './kernel/error-codes.ts';

/**
 * Base class of every error elicit throws. `code` is stable across releases; match on it, not
 * on the message. Wire errors (JSON-RPC) are separate: see each part's own error module. The
 * code is typed by the catalogue (kernel/error-codes.ts): a code that is not in it does not
 * compile, so every throw site names a catalogued constant.
 */
export class ElicitError extends Error {
  readonly code: ElicitErrorCode;
  constructor(code: ElicitErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An invariant of elicit did not hold: a bug in elicit, never a usage mistake. */
export class InternalError extends ElicitError {
  constructor(what: string) {
    super(
      ELICIT_INTERNAL,
      `elicit: ${what}. This is a bug in elicit; please report it with this message.`,
    );
  }
}
