/**
 * The shared inbox through a Redis outage (a redis-server of the test's own, durable: it comes
 * back with what it acknowledged). While it is down, a replica's page answers 500 and nothing in
 * either process throws unhandled; the waiting call is neither answered nor cancelled by the
 * outage; once Redis is back, the answer given on the other replica reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Inbox,
  type InboxAnswer,
  openSharedStore,
  type SharedStore,
} from '../../src/gateway/index.ts';
import { type OwnRedis, ownRedis } from '../support/redis-server.ts';

let redis: OwnRedis;
const opened: { close(): Promise<void> }[] = [];
const warnings: string[] = [];

beforeAll(async () => {
  redis = await ownRedis({ persist: true });
}, 30_000);
afterAll(async () => {
  for (const o of opened.reverse()) await o.close().catch(() => {});
  await redis?.close();
});

async function replica(): Promise<{ shared: SharedStore; inbox: Inbox }> {
  const shared = await openSharedStore(redis.url, {
    prefix: 'faults:',
    onWarning: (w) => warnings.push(w.code),
  });
  opened.push(shared);
  const inbox = await Inbox.start({ store: shared.store, bus: shared.bus, pollMs: 200 });
  opened.push(inbox);
  return { shared, inbox };
}

describe('the shared inbox through a Redis outage', () => {
  it('the page fails plainly while Redis is down; the question survives and is answered after', async () => {
    const a = await replica();
    const b = await replica();
    let settled: InboxAnswer | undefined;
    const asked = a.inbox
      .ask(
        { server: 's', tool: 't', message: 'Colour?', mode: 'form', requestedSchema: {} },
        { principal: 'local' },
      )
      .then((answer) => {
        settled = answer;
        return answer;
      });
    const first = await fetch(await b.inbox.link(), { redirect: 'manual' });
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const page = await (await fetch(b.inbox.url, { headers: { cookie } })).text();
    const csrf = /name="csrf" content="([^"]+)"/.exec(page)?.[1] as string;
    const list = () => fetch(new URL('/inbox/questions', b.inbox.url), { headers: { cookie } });
    const waiting = (await (await list()).json()) as { id: string }[];
    expect(waiting).toHaveLength(1);

    await redis.kill();
    expect((await list()).status).toBe(500);
    // Polls on the holder meet the outage for a while: the call goes on waiting.
    await new Promise((r) => setTimeout(r, 1000));
    expect(settled).toBeUndefined();
    expect(warnings).toContain('ELICIT_STORE_UNAVAILABLE');

    await redis.start();
    let status = 0;
    for (let i = 0; i < 100 && status !== 204; i++) {
      // The clients reconnect within a quarter second of Redis being back.
      await new Promise((r) => setTimeout(r, 100));
      status = (
        await fetch(new URL('/inbox/answer', b.inbox.url), {
          method: 'POST',
          headers: { cookie, 'x-elicit-csrf': csrf, origin: b.inbox.url.origin },
          body: JSON.stringify({ id: waiting[0]?.id, action: 'accept', content: { c: 'red' } }),
        })
      ).status;
    }
    expect(status).toBe(204);
    expect(await asked).toEqual({ action: 'accept', content: { c: 'red' } });
  }, 60_000);
});
