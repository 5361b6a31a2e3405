/**
 * openSharedStore: the store replicas share, named by one address. On PostgreSQL (its
 * LISTEN/NOTIFY bus beside it), a question asked of one replica's inbox is answered through
 * another's page and reaches the asker; an address of another kind is refused by name.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  Inbox,
  InboxError,
  type InboxQuestion,
  openSharedStore,
  type SharedStore,
} from '../../src/gateway/index.ts';
import { analyzeUrl } from '../../src/url/index.ts';

const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
});

async function replica(): Promise<{ shared: SharedStore; inbox: Inbox }> {
  const shared = await openSharedStore(POSTGRES_URL, { prefix: 'elicit_test_gateway_inbox' });
  opened.push(shared);
  const inbox = await Inbox.start({ store: shared.store, bus: shared.bus, pollMs: 60_000 });
  opened.push(inbox);
  return { shared, inbox };
}

describe('openSharedStore', () => {
  it('PostgreSQL: a question asked on one replica is answered on the other, woken by NOTIFY', async () => {
    const a = await replica();
    const b = await replica();
    const asked = a.inbox.ask(
      { server: 's', tool: 't', message: 'Colour?', mode: 'form', requestedSchema: {} },
      { principal: 'local' },
    );
    const first = await fetch(await b.inbox.link(), { redirect: 'manual' });
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const page = await (await fetch(b.inbox.url, { headers: { cookie } })).text();
    const csrf = /name="csrf" content="([^"]+)"/.exec(page)?.[1] as string;
    let waiting: { id: string }[] = [];
    for (let i = 0; i < 100 && waiting.length === 0; i++) {
      const r = await fetch(new URL('/inbox/questions', b.inbox.url), { headers: { cookie } });
      // A run killed half way leaves questions whose replica is gone: they show as failed.
      waiting = ((await r.json()) as InboxQuestion[]).filter((q) => q.failed === undefined);
    }
    expect(waiting).toHaveLength(1);
    const started = Date.now();
    const posted = await fetch(new URL('/inbox/answer', b.inbox.url), {
      method: 'POST',
      headers: { cookie, 'x-elicit-csrf': csrf, origin: b.inbox.url.origin },
      body: JSON.stringify({ id: waiting[0]?.id, action: 'accept', content: { colour: 'red' } }),
    });
    expect(posted.status).toBe(204);
    expect(await asked).toEqual({ action: 'accept', content: { colour: 'red' } });
    // The poll is a minute away here: the bus woke the asker.
    expect(Date.now() - started).toBeLessThan(5000);

    // A URL page travels too: its analysis reaches the other replica's page as the asker made it.
    const analysis = analyzeUrl('https://user:pw@shop.example.com/pay?order=7');
    const page2 = a.inbox.ask(
      { server: 's', tool: 'pay', message: 'Pay here', mode: 'url', analysis },
      { principal: 'local' },
    );
    let listed: InboxQuestion[] = [];
    for (let i = 0; i < 100 && listed.length === 0; i++) {
      const r = await fetch(new URL('/inbox/questions', b.inbox.url), { headers: { cookie } });
      listed = ((await r.json()) as InboxQuestion[]).filter((q) => q.failed === undefined);
    }
    const url = listed[0] as InboxQuestion & { analysis: unknown };
    expect(url.analysis).toEqual(JSON.parse(JSON.stringify(analysis)));
    await fetch(new URL('/inbox/answer', b.inbox.url), {
      method: 'POST',
      headers: { cookie, 'x-elicit-csrf': csrf, origin: b.inbox.url.origin },
      body: JSON.stringify({ id: url.id, action: 'opened' }),
    });
    expect(await page2).toEqual({ action: 'opened' });
  });

  it('refuses an address that names no shared store', async () => {
    await expect(openSharedStore('sqlite:///tmp/x.db')).rejects.toThrow(InboxError);
    await expect(openSharedStore('nonsense')).rejects.toMatchObject({
      code: 'ELICIT_GATEWAY_STORE',
    });
  });
});
