/**
 * elicit/store/testing: the store contract as a test suite, so a driver written anywhere can
 * prove it keeps the contract elicit's own drivers keep (memory, SQLite, Redis, PostgreSQL run
 * exactly this suite). It registers its cases through the `describe` and `it` it is given, so it
 * works in vitest, Jest, node:test or any runner with those two, and asserts with node:assert,
 * so it imports no test runner itself.
 */
import assert from 'node:assert/strict';
import { onceStoreFrom } from './once.ts';
import type { Store } from './types.ts';

/** The two registration functions of a test runner (vitest's, Jest's, node:test's fit as they are). */
export interface ContractRunner {
  /** Groups the cases under a name. */
  readonly describe: (name: string, body: () => void) => unknown;
  /** One case; the suite's cases are async and throw (node:assert) when the driver is wrong. */
  readonly it: (name: string, body: () => Promise<void>) => unknown;
}

/** What the suite needs to know about the driver under test. */
export interface StoreContractOptions {
  /**
   * Opens the store under test. Called once per case (twice for the restart case); every store
   * it returns is closed by the suite when the case ends. Stores opened by one suite should see
   * the same records (the same file, server, prefix or schema), as replicas would.
   */
  readonly open: () => Store | Promise<Store>;
  /** The records outlive the store: also proves a record is there after close and reopen. */
  readonly durable?: boolean;
}

/** How long the expiry cases wait past a record's TTL (the TTL is 150 ms). */
const EXPIRY_WAIT_MS = 300;
const LONG = { ttlMs: 60_000 } as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Registers the store contract's cases for one driver: `storeContract('my driver', { open },
 * { describe, it })`. Keys are random per case, so a shared backend needs no cleaning between
 * runs (records expire within a minute).
 */
export function storeContract(
  name: string,
  options: StoreContractOptions,
  runner: ContractRunner,
): void {
  const { describe, it } = runner;
  const key = (k: string) => `${k}-${Math.random().toString(36).slice(2)}`;
  /** One case with a freshly opened store, closed whatever the case does. */
  const withStore = (title: string, body: (s: Store) => Promise<void>) =>
    it(title, async () => {
      const s = await options.open();
      try {
        await body(s);
      } finally {
        await s.close();
      }
    });

  describe(`store contract: ${name}`, () => {
    withStore('creates only if absent, gets, and keeps JSON exactly', async (s) => {
      const k = key('a');
      const value = { n: 1, s: 'ü', list: [1, null, true], nested: { x: 'y' } };
      assert.equal(await s.create(k, value, LONG), true);
      assert.equal(await s.create(k, { other: true }, LONG), false);
      const got = await s.get(k);
      assert.deepEqual(got?.value, value);
      assert.equal(got?.version, 1);
      assert.ok((got?.expiresAt ?? 0) > Date.now(), 'expiresAt is in the future');
      assert.equal(await s.get(key('missing')), undefined);
    });

    withStore('compare-and-set by version', async (s) => {
      const k = key('cas');
      await s.create(k, { status: 'pending' }, LONG);
      assert.equal(await s.update(k, 1, { status: 'complete' }), true);
      assert.equal(await s.update(k, 1, { status: 'declined' }), false);
      const got = await s.get(k);
      assert.deepEqual(got?.value, { status: 'complete' });
      assert.equal(got?.version, 2);
      assert.equal(await s.update(key('none'), 1, {}), false);
    });

    withStore('update tells its commit once, before it resolves, only when it took', async (s) => {
      const k = key('commit');
      await s.create(k, { n: 0 }, LONG);
      const told: string[] = [];
      const tell = (what: string) => ({ committed: () => told.push(what) });
      const won = await s.update(k, 1, { n: 1 }, tell('won'));
      const atResolve = [...told];
      assert.equal(won, true);
      assert.equal(await s.update(k, 1, { n: 2 }, tell('lost')), false);
      assert.equal(await s.update(key('none'), 1, {}, tell('none')), false);
      assert.equal(await s.update(k, 2, { n: 3 }, { ...LONG, ...tell('ttl') }), true);
      await new Promise((r) => setTimeout(r, 20));
      // A driver may ignore the hook; one that honours it tells each write that took, once,
      // before that write resolves.
      if (told.length > 0) {
        assert.deepEqual(told, ['won', 'ttl']);
        assert.deepEqual(atResolve, ['won']);
      }
    });

    withStore('take is single-use, even when raced', async (s) => {
      const k = key('nonce');
      await s.create(k, 'x', LONG);
      const results = await Promise.all(Array.from({ length: 20 }, () => s.take(k)));
      assert.equal(results.filter((r) => r !== undefined).length, 1);
      assert.equal(await s.get(k), undefined);
    });

    withStore('concurrent creates of one key: exactly one wins', async (s) => {
      const k = key('race');
      const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => s.create(k, i, LONG)));
      assert.equal(wins.filter(Boolean).length, 1);
    });

    withStore('expires records', async (s) => {
      const k = key('ttl');
      await s.create(k, 1, { ttlMs: 150 });
      assert.notEqual(await s.get(k), undefined);
      await sleep(EXPIRY_WAIT_MS);
      assert.equal(await s.get(k), undefined);
      assert.equal(await s.create(k, 2, LONG), true);
    });

    withStore('finds live records by tag', async (s) => {
      const alice = key('principal:alice');
      const [a, b, c] = [key('r'), key('r'), key('r')];
      await s.create(a, 1, { ...LONG, tags: [alice] });
      await s.create(b, 2, { ...LONG, tags: [alice] });
      await s.create(c, 3, { ...LONG, tags: [key('principal:bob')] });
      assert.deepEqual((await s.findByTag(alice)).sort(), [a, b].sort());
      await s.delete(a);
      assert.deepEqual(await s.findByTag(alice), [b]);
    });

    withStore('caps the live records of a tag atomically, counted not listed', async (s) => {
      const tag = key('cap');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.createCapped(key(`c${i}`), { i }, LONG, { tag, max: 5 }),
        ),
      );
      assert.equal(results.filter((r) => r === 'created').length, 5);
      assert.equal(results.filter((r) => r === 'full').length, 15);
      assert.equal(await s.countByTag(tag), 5);
      const keys = await s.findByTag(tag);
      assert.equal(keys.length, 5);
      // An existing key is 'exists', not 'full', whatever the cap.
      assert.equal(await s.createCapped(keys[0] as string, 1, LONG, { tag, max: 99 }), 'exists');
      await s.delete(keys[0] as string);
      assert.equal(await s.countByTag(tag), 4);
      assert.notEqual(await s.take(keys[1] as string), undefined);
      assert.equal(await s.countByTag(tag), 3);
      // Another tag of the record is counted too.
      const other = key('other');
      assert.equal(
        await s.createCapped(key('d'), 1, { ...LONG, tags: [other] }, { tag, max: 5 }),
        'created',
      );
      assert.equal(await s.countByTag(tag), 4);
      assert.equal(await s.countByTag(other), 1);
      assert.equal(await s.countByTag(key('none')), 0);
    });

    withStore(
      'a capped tag frees its places as records expire, and as their TTL is shortened',
      async (s) => {
        const tag = key('cap-ttl');
        assert.equal(await s.createCapped(key('s'), 1, { ttlMs: 150 }, { tag, max: 2 }), 'created');
        const long = key('l');
        assert.equal(await s.createCapped(long, 1, LONG, { tag, max: 2 }), 'created');
        assert.equal(await s.createCapped(key('x'), 1, LONG, { tag, max: 2 }), 'full');
        assert.equal(await s.update(long, 1, 2, { ttlMs: 150 }), true);
        assert.equal((await s.get(long))?.value, 2);
        await sleep(EXPIRY_WAIT_MS);
        assert.equal(await s.countByTag(tag), 0);
        assert.deepEqual(await s.findByTag(tag), []);
        assert.equal(await s.createCapped(key('y'), 1, LONG, { tag, max: 2 }), 'created');
        assert.equal(await s.countByTag(tag), 1);
      },
    );

    withStore('pages a tag in key order', async (s) => {
      const tag = key('page');
      const base = key('p');
      const keys = Array.from({ length: 7 }, (_, i) => `${base}-${i}`);
      for (const k of [...keys].reverse()) await s.create(k, 1, { ...LONG, tags: [tag] });
      const first = await s.findByTag(tag, { limit: 3 });
      assert.deepEqual(first, keys.slice(0, 3));
      assert.deepEqual(
        await s.findByTag(tag, { after: first.at(-1) as string, limit: 3 }),
        keys.slice(3, 6),
      );
      assert.deepEqual(await s.findByTag(tag, { after: keys[5] as string, limit: 3 }), [keys[6]]);
      await s.delete(keys[4] as string);
      assert.deepEqual(await s.findByTag(tag, { after: keys[2] as string, limit: 2 }), [
        keys[3],
        keys[5],
      ]);
      await assert.rejects(s.findByTag(tag, { limit: 0 }), /page limit/);
    });

    withStore('a tagged record updated without a TTL keeps its tags and expiry', async (s) => {
      const tag = key('keep');
      const k = key('k');
      await s.create(k, { a: 1 }, { ...LONG, tags: [tag] });
      const before = await s.get(k);
      assert.equal(await s.update(k, 1, { a: [] }), true);
      const after = await s.get(k);
      assert.deepEqual(after?.value, { a: [] });
      assert.equal(after?.expiresAt, before?.expiresAt);
      assert.deepEqual(await s.findByTag(tag), [k]);
      assert.equal(await s.countByTag(tag), 1);
    });

    withStore('refuses bad keys and TTLs clearly', async (s) => {
      await assert.rejects(
        s.create('', 1, { ttlMs: 1000 }),
        /store key must be 1-512 printable characters/,
      );
      await assert.rejects(s.create('k\n', 1, { ttlMs: 1000 }), /printable/);
      await assert.rejects(
        s.create(key('t'), 1, { ttlMs: 0 }),
        /ttlMs must be a positive whole number/,
      );
    });

    withStore('backs ask.once: a marker is consumed once', async (s) => {
      const once = onceStoreFrom(s);
      const k = key('flow');
      assert.equal(await once.consume(k, 60_000), true);
      assert.equal(await once.consume(k, 60_000), false);
    });

    if (options.durable === true)
      it('keeps records across a close and a reopen', async () => {
        const first = await options.open();
        const k = key('pending');
        try {
          await first.create(k, { status: 'pending' }, LONG);
        } finally {
          await first.close();
        }
        const second = await options.open();
        try {
          assert.deepEqual((await second.get(k))?.value, { status: 'pending' });
        } finally {
          await second.close();
        }
      });
  });
}
