/**
 * Counts asks that are waiting for a person (a legacy elicitation, a URL step waiting for its
 * page), per session, per principal and in the whole server. A wait holds memory until it is
 * answered, times out or is abandoned; past any cap the next ask is refused at once with
 * TooManyPendingAsksError instead of waiting, so the memory a client can hold is bounded.
 */
import { ProtocolError } from '@modelcontextprotocol/server';
import { checkLimits, TooManyPendingAsksError } from './errors.ts';

export interface PendingLimits {
  /** Asks waiting at once in one legacy session; default 32. */
  readonly maxPendingPerSession: number;
  /** Asks waiting at once for one principal, over all its sessions and requests; default 128. */
  readonly maxPendingPerPrincipal: number;
  /** Asks waiting at once in this server; default 1024. */
  readonly maxPending: number;
}

export const DEFAULT_PENDING_LIMITS: PendingLimits = Object.freeze({
  maxPendingPerSession: 32,
  maxPendingPerPrincipal: 128,
  maxPending: 1024,
});

/** Who an ask waits for: the principal, and the session if there is one (any stable object). */
export interface Waiter {
  readonly principal: string;
  readonly session: object | undefined;
}

export class PendingAsks {
  readonly limits: PendingLimits;
  private total = 0;
  private readonly byPrincipal = new Map<string, number>();
  private readonly bySession = new WeakMap<object, number>();

  constructor(limits: PendingLimits) {
    const { maxPendingPerSession, maxPendingPerPrincipal, maxPending } = limits;
    checkLimits('limits', { maxPendingPerSession, maxPendingPerPrincipal, maxPending });
    this.limits = limits;
  }

  /** Asks waiting now, in the whole server. */
  get size(): number {
    return this.total;
  }

  /** Asks waiting now for one principal. */
  of(principal: string): number {
    return this.byPrincipal.get(principal) ?? 0;
  }

  /**
   * Takes a slot or throws TooManyPendingAsksError. The caller gives it back with `give`, exactly
   * once: no closure per wait (see `acquire` for the guarded form).
   */
  take(principal: string, session: object | undefined): void {
    const inSession = session === undefined ? 0 : (this.bySession.get(session) ?? 0);
    if (session !== undefined && inSession >= this.limits.maxPendingPerSession)
      throw new TooManyPendingAsksError('session', this.limits.maxPendingPerSession);
    const forPrincipal = this.byPrincipal.get(principal) ?? 0;
    if (forPrincipal >= this.limits.maxPendingPerPrincipal)
      throw new TooManyPendingAsksError('principal', this.limits.maxPendingPerPrincipal);
    if (this.total >= this.limits.maxPending)
      throw new TooManyPendingAsksError('process', this.limits.maxPending);
    this.total++;
    this.byPrincipal.set(principal, forPrincipal + 1);
    if (session !== undefined) this.bySession.set(session, inSession + 1);
  }

  /** Gives back a slot `take` gave. */
  give(principal: string, session: object | undefined): void {
    this.total--;
    const p = (this.byPrincipal.get(principal) ?? 1) - 1;
    if (p === 0) this.byPrincipal.delete(principal);
    else this.byPrincipal.set(principal, p);
    if (session !== undefined) this.bySession.set(session, (this.bySession.get(session) ?? 1) - 1);
  }

  /** Takes a slot or throws TooManyPendingAsksError; the returned release is idempotent. */
  acquire(waiter: Waiter): () => void {
    const { principal, session } = waiter;
    this.take(principal, session);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.give(principal, session);
    };
  }

  /** Runs `wait` in a slot, releasing it however the wait ends. */
  async hold<T>(waiter: Waiter, wait: () => Promise<T>): Promise<T> {
    const release = this.acquire(waiter);
    try {
      return await wait();
    } finally {
      release();
    }
  }
}

/**
 * JSON-RPC code of a refused ask. The spec names none for "server busy", so it is the generic
 * implementation-defined server error; `data.code` says which (ELICIT_TOO_MANY_PENDING).
 */
export const TOO_MANY_PENDING_CODE = -32000;

export function refusalOnWire(error: TooManyPendingAsksError): ProtocolError {
  return new ProtocolError(TOO_MANY_PENDING_CODE, error.message, {
    code: error.code,
    scope: error.scope,
    limit: error.limit,
  });
}
