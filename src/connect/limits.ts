/**
 * Every limit of the connect pages, with its default, and the two small mechanisms behind them:
 * per-address token buckets that cannot grow without bound, and a store-wide cap on sign-ins
 * started by browsers nobody has authenticated yet.
 */

import { ElicitError } from '../errors.ts';
import { ELICIT_CONNECT_LIMIT } from '../kernel/error-codes.ts';
import { TokenBuckets } from '../kernel/rate-limit.ts';
import type { Store } from '../kernel/store.ts';

/** A limit given to createConnectApp is not a positive whole number. */
export class ConnectLimitError extends ElicitError {}

export interface ConnectLimits {
  /** Largest request body any connect page accepts, counted while it streams in (bytes). */
  readonly bodyBytes: number;
  /** Requests to `/elicit/login…` one client address may make at once… */
  readonly loginBurst: number;
  /** …and per minute after that. */
  readonly loginPerMinute: number;
  /** Client addresses tracked at once; beyond it the least recently seen are forgotten. */
  readonly trackedAddresses: number;
  /** How long a started sign-in (login transaction, login cookie) stays usable (ms). */
  readonly loginTtlMs: number;
  /** Sign-ins started per `loginTtlMs` window across all replicas, so live ones never exceed it. */
  readonly loginTransactions: number;
}

export const DEFAULT_CONNECT_LIMITS: ConnectLimits = Object.freeze({
  bodyBytes: 64 * 1024,
  loginBurst: 30,
  loginPerMinute: 30,
  trackedAddresses: 10_000,
  loginTtlMs: 10 * 60_000,
  loginTransactions: 10_000,
});

export function connectLimits(overrides: Partial<ConnectLimits> | undefined): ConnectLimits {
  const limits = { ...DEFAULT_CONNECT_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new ConnectLimitError(
        ELICIT_CONNECT_LIMIT,
        `connect limit ${name} must be a positive whole number, got ${String(value)}; fix limits.${name} passed to createConnectApp.`,
      );
  }
  return Object.freeze(limits);
}

/** Token buckets keyed by client address, in a map bounded by `trackedAddresses` (LRU). */
export class AddressBuckets extends TokenBuckets {
  constructor(limits: ConnectLimits, now: () => number = Date.now) {
    super(
      { capacity: limits.loginBurst, perMinute: limits.loginPerMinute },
      now,
      limits.trackedAddresses,
    );
  }
}

/**
 * Admits one more unauthenticated sign-in, or refuses it. Counters live in the store per window
 * of `loginTtlMs`; a transaction from two windows ago has expired, so admitting only while the
 * current and previous windows together hold fewer than `loginTransactions` keeps the live count
 * under the cap on every replica.
 */
export async function admitLogin(
  store: Store,
  limits: ConnectLimits,
  now = Date.now(),
): Promise<boolean> {
  const window = Math.floor(now / limits.loginTtlMs);
  const key = (w: number) => `login-count:${w}`;
  const previous = (await store.get<number>(key(window - 1)))?.value ?? 0;
  for (let tries = 0; tries < 8; tries++) {
    const current = await store.get<number>(key(window));
    const count = current?.value ?? 0;
    if (previous + count >= limits.loginTransactions) return false;
    const written =
      current === undefined
        ? await store.create(key(window), 1, { ttlMs: 2 * limits.loginTtlMs })
        : await store.update(key(window), current.version, count + 1);
    if (written) return true;
  }
  // Heavy contention on the counter is itself a sign of a flood.
  return false;
}
