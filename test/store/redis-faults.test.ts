/**
 * The Redis store while its server is killed and started again: every operation fails fast with
 * ELICIT_STORE_UNAVAILABLE (the ioredis error as `cause`, never in the message), the outage is
 * told once, and the same store works again soon after the server is back.
 */
import { describe, expect, it } from 'vitest';
import { redisStore, type Store, StoreError } from '../../src/store/index.ts';
import { ownRedis } from '../support/redis-server.ts';

const ops = (s: Store): Record<string, () => Promise<unknown>> => ({
  create: () => s.create(`k-${Math.random()}`, 1, { ttlMs: 60_000, tags: ['t'] }),
  get: () => s.get('k'),
  update: () => s.update('k', 1, 2),
  take: () => s.take('k'),
  delete: () => s.delete('k'),
  findByTag: () => s.findByTag('t'),
});

describe('Redis store through an outage', () => {
  it('fails fast with StoreError, warns once, and resumes without a restart', async () => {
    const redis = await ownRedis();
    const warnings: { code: string; message: string }[] = [];
    const store = await redisStore({ url: redis.url, onWarning: (w) => warnings.push(w) });
    expect(await store.create('k', 1, { ttlMs: 60_000, tags: ['t'] })).toBe(true);
    await redis.kill();
    for (const [name, op] of Object.entries(ops(store))) {
      const started = Date.now();
      const e = await op().then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e, name).toBeInstanceOf(StoreError);
      expect((e as StoreError).code, name).toBe('ELICIT_STORE_UNAVAILABLE');
      expect((e as StoreError).message, name).not.toMatch(/ioredis|ECONNREFUSED|retries|closed/i);
      expect((e as StoreError).cause, name).toBeInstanceOf(Error);
      // Fails at the first failed reconnect attempt, not after twenty.
      expect(Date.now() - started, name).toBeLessThan(2000);
    }
    // Several seconds of reconnect attempts make one warning, not one per attempt.
    await new Promise((r) => setTimeout(r, 1500));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.code).toBe('ELICIT_STORE_UNAVAILABLE');
    const back = Date.now();
    await redis.start();
    let recovered: number | undefined;
    while (Date.now() - back < 5000) {
      if (await store.create('k2', 1, { ttlMs: 60_000 }).catch(() => false)) {
        recovered = Date.now() - back;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(recovered).toBeDefined();
    expect(recovered).toBeLessThan(1000);
    expect((await store.get('k2'))?.value).toBe(1);
    // A second outage is told again.
    await redis.kill();
    await store.get('k2').catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    expect(warnings).toHaveLength(2);
    await store.close();
    await redis.close();
  }, 30_000);

  it('a hung server (SIGSTOP): a command fails after the 5 s command timeout, then works again', async () => {
    const redis = await ownRedis();
    const store = await redisStore({ url: redis.url, onWarning: () => {} });
    try {
      expect(await store.create('h', 1, { ttlMs: 60_000 })).toBe(true);
      redis.pause();
      const e = await store.get('h').then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(StoreError);
      expect((e as StoreError).code).toBe('ELICIT_STORE_UNAVAILABLE');
      expect(((e as StoreError).cause as Error).message).toMatch(/timed out/i);
      redis.resume();
      expect((await store.get('h'))?.value).toBe(1);
    } finally {
      redis.resume();
      await store.close();
      await redis.close();
    }
  }, 20_000);
});
