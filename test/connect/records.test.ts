/**
 * URL-mode records on every driver: the completion a retried call may claim is found through
 * an index, with a bounded number of reads however many records the principal has, and a
 * principal's records are listed a page at a time.
 */
import { describe, expect, it } from 'vitest';
import { UrlRecords } from '../../src/connect/records.ts';
import type { Store } from '../../src/store/index.ts';
import { storeDrivers } from '../support/drivers.ts';

const drivers = storeDrivers('url-records');

/** The store, with its reads counted (the calls pass through to the real driver). */
function counted(store: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const wrapped: Store = {
    ...store,
    create: (...a) => store.create(...a),
    get: (...a) => {
      reads++;
      return store.get(...a);
    },
    update: (...a) => store.update(...a),
    take: (...a) => store.take(...a),
    delete: (...a) => store.delete(...a),
    createCapped: (...a) => store.createCapped(...a),
    findByTag: (...a) => {
      reads++;
      return store.findByTag(...a);
    },
    countByTag: (...a) => store.countByTag(...a),
    close: () => store.close(),
  };
  return { store: wrapped, reads: () => reads };
}

const fields = (principal: string, subject: string) =>
  ({
    principal,
    clientId: undefined,
    purpose: 'connect',
    subject,
    label: undefined,
    description: undefined,
    origin: undefined,
  }) as const;

describe.each(drivers)('URL-mode records (%s)', (_name, open) => {
  it('finds the completions to claim with bounded reads, newest first, whatever else the principal has', async () => {
    const { store, reads } = counted(await open());
    const records = new UrlRecords(store);
    const principal = `p-${Math.random()}`;
    // Many records of the same principal that are not completions of this subject.
    await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        records.create(fields(principal, i % 2 === 0 ? 'github' : 'slack')),
      ),
    );
    const a = await records.create(fields(principal, 'github'));
    const b = await records.create(fields(principal, 'github'));
    const other = await records.create(fields(`${principal}-other`, 'github'));
    await records.finish(a.id, 'complete');
    await records.finish(b.id, 'complete');
    await records.finish(other.id, 'complete');
    const declined = await records.create(fields(principal, 'github'));
    await records.finish(declined.id, 'declined');

    const before = reads();
    const found = await records.completed(principal, 'connect', 'github');
    // One read of the index, one per completion it names.
    expect(reads() - before).toBe(3);
    expect(found.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect(found[0]?.createdAt).toBeGreaterThanOrEqual(found[1]?.createdAt ?? 0);
    expect(await records.completed(principal, 'secret', 'github')).toEqual([]);
    expect(await records.completed(principal, 'connect', 'slack')).toEqual([]);

    // Claimed once, as before.
    expect(await records.claim(a.id)).toBe(true);
    expect(await records.claim(a.id)).toBe(false);
  });

  it('keeps the newest completions of one subject', async () => {
    const records = new UrlRecords(await open());
    const principal = `p-${Math.random()}`;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await records.create(fields(principal, 'github'));
      await records.finish(r.id, 'complete');
      ids.push(r.id);
    }
    const found = await records.completed(principal, 'connect', 'github');
    expect(found.map((r) => r.id).sort()).toEqual(ids.slice(-16).sort());
  });

  it("lists a principal's records a page at a time", async () => {
    const { store, reads } = counted(await open());
    const records = new UrlRecords(store);
    const principal = `p-${Math.random()}`;
    const made = await Promise.all(
      Array.from({ length: 25 }, () => records.create(fields(principal, 'github'))),
    );
    const before = reads();
    const first = await records.byPrincipal(principal, { limit: 10 });
    expect(reads() - before).toBe(11);
    expect(first).toHaveLength(10);
    const rest: string[] = [];
    let after = first.at(-1)?.id;
    while (after !== undefined) {
      const page = await records.byPrincipal(principal, { limit: 10, after });
      rest.push(...page.map((r) => r.id));
      after = page.length === 10 ? page.at(-1)?.id : undefined;
    }
    expect([...first.map((r) => r.id), ...rest].sort()).toEqual(made.map((r) => r.id).sort());
  });
});
