/**
 * The owner of work that runs outside any request (a URL-mode wait's poll, a task's lease
 * renewal, progress and journal writes, a listen stream's reads): what fails there is told to
 * the server's `onWarning` once (ELICIT_BACKGROUND_FAILED) until it works again, and is never
 * left as an unhandled rejection that would end the process. The work itself decides whether
 * to retry or to fail the one request it belongs to.
 */
import { ELICIT_BACKGROUND_FAILED } from '../kernel/error-codes.ts';
import type { OnWarning } from '../kernel/redis.ts';

/** One line for the operator's log: the error and its cause (a driver's text stays here). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `; cause: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

export class Faults {
  readonly #warn: OnWarning;
  readonly #failing = new Set<string>();
  constructor(warn: OnWarning) {
    this.#warn = warn;
  }

  /** `what` failed: told once until `recovered(what)`. Never throws. */
  failed(what: string, error: unknown): void {
    if (this.#failing.has(what)) return;
    // A bound on the kinds remembered: they are a handful of fixed names in practice.
    if (this.#failing.size >= 64) this.#failing.clear();
    this.#failing.add(what);
    try {
      this.#warn({
        code: ELICIT_BACKGROUND_FAILED,
        message: `${what} failed (${describe(error)}); it is retried or its request fails, and this is said again only after it has worked.`,
      });
    } catch {
      // A throwing warning hook must not become the unhandled error this class exists to stop.
    }
  }

  recovered(what: string): void {
    this.#failing.delete(what);
  }

  /** Owns a promise nobody awaits: its failure is told, never unhandled. */
  detach(what: string, promise: Promise<unknown>): void {
    promise.then(
      () => this.recovered(what),
      (error: unknown) => this.failed(what, error),
    );
  }
}

/** For code with no server at hand (tests, a port used alone): warnings go to the console. */
export const consoleFaults = new Faults((w) => console.warn(`elicit: ${w.message} (${w.code})`));
