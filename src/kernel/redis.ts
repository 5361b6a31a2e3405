/**
 * How elicit's own ioredis clients (the Redis store and the completion bus) live through a
 * Redis outage: settings that fail commands fast and reconnect quickly, and one warning per
 * outage instead of ioredis's unhandled `error` events. Types only from ioredis: nothing here
 * loads it.
 */
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { ELICIT_STORE_UNAVAILABLE } from './error-codes.ts';

/** What a part of elicit tells the operator; the server's `onWarning` takes these. */
export type OnWarning = (warning: { readonly code: string; readonly message: string }) => void;

/** The default: one line on the console, never a stack trace. */
export const warnToConsole: OnWarning = (w) => console.warn(`elicit: ${w.message} (${w.code})`);

/**
 * During an outage a command fails at the first failed reconnect attempt
 * (`maxRetriesPerRequest: 0`), not after twenty; reconnect attempts come every 50 ms growing to
 * 250 ms, for ever, so work resumes within a quarter second of Redis coming back; a command
 * with no reply within 5 s (a hung server) fails instead of waiting for ever.
 */
export const REDIS_DEFAULTS: Readonly<RedisOptions> = Object.freeze({
  maxRetriesPerRequest: 0,
  retryStrategy: (times: number) => Math.min(times * 50, 250),
  commandTimeout: 5000,
});

/**
 * Listens to a client's `error` events (without a listener ioredis prints every reconnect
 * attempt's error with its stack) and says once per outage that the connection is lost; the
 * commands that meet the outage fail with their own errors. The ioredis text goes to the
 * operator's log only.
 */
export function watchRedis(client: RedisClient, what: string, onWarning = warnToConsole): void {
  let down = false;
  client.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    try {
      onWarning({
        code: ELICIT_STORE_UNAVAILABLE,
        message: `${what} lost its Redis connection (${error instanceof Error ? error.message : String(error)}); what needs it fails until it is back, reconnecting.`,
      });
    } catch {
      // A throwing warning hook must not turn into an unhandled error event.
    }
  });
  client.on('ready', () => {
    down = false;
  });
}
