/**
 * The inbox is bound to principals: a gateway served over HTTP with authenticated callers puts
 * each question in the inbox of the principal whose call asked it. A browser signed in as one
 * principal (a one-time link minted for it) neither sees nor answers another's question; each
 * person answers their own, and each call ends with its own answer.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, Inbox, type InboxQuestion } from '../../src/gateway/index.ts';
import { tokenPrincipal } from '../../src/kernel/keys.ts';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  type HttpOptions,
  httpEntry,
  type Listening,
  listen,
} from '../../src/server/index.ts';

let upstream: Listening;
let gateway: Gateway;
let front: Listening;
let inbox: Inbox;
const waitingFor: string[] = [];

const byHeader: HttpOptions['authInfo'] = (req) => {
  const user = req.headers.get('x-user');
  return user === null
    ? undefined
    : { token: user, clientId: user, scopes: [], extra: { iss: 'https://idp.test', sub: user } };
};
const principal = (user: string) => tokenPrincipal('https://idp.test', user);

beforeAll(async () => {
  const app = createServer({ name: 'asker', version: '1' }).tool(
    'name',
    { description: 'asks for a name' },
    async (_args, ask) => {
      const r = await ask.form('who', form({ name: text() }), { message: 'Your name?' });
      return r.action === 'accept' ? `hello ${r.content.name}` : r.action;
    },
  );
  upstream = await listen(httpEntry(app));
  inbox = await Inbox.start({ onWaiting: (_q, p) => waitingFor.push(p) });
  gateway = await createGateway({
    transport: () => new StreamableHTTPClientTransport(upstream.url),
    inbox,
  });
  front = await gateway.listen({}, { authInfo: byHeader });
}, 60_000);
afterAll(async () => {
  await front?.close();
  await gateway?.close();
  await inbox?.close();
  await upstream?.close();
});

async function host(user: string): Promise<Client> {
  const client = new Client({ name: 'cli', version: '1' }, { capabilities: {} });
  client.setVersionNegotiation({ mode: 'legacy' });
  await client.connect(
    new StreamableHTTPClientTransport(front.url, { requestInit: { headers: { 'x-user': user } } }),
  );
  return client;
}

/** A browser session for `who` from a link minted for them: its cookie and CSRF token. */
async function signIn(who: string): Promise<{ cookie: string; csrf: string }> {
  const first = await fetch(await inbox.link(who), { redirect: 'manual' });
  expect(first.status).toBe(303);
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const page = await (await fetch(inbox.url, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" content="([^"]+)"/.exec(page)?.[1] as string };
}

async function questions(session: { cookie: string }): Promise<InboxQuestion[]> {
  const r = await fetch(new URL('/inbox/questions', inbox.url), {
    headers: { cookie: session.cookie },
  });
  expect(r.status).toBe(200);
  return (await r.json()) as InboxQuestion[];
}

function answer(session: { cookie: string; csrf: string }, id: string, name: string) {
  return fetch(new URL('/inbox/answer', inbox.url), {
    method: 'POST',
    headers: {
      cookie: session.cookie,
      'x-elicit-csrf': session.csrf,
      origin: inbox.url.origin,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ id, action: 'accept', content: { name } }),
  });
}

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

describe('the inbox is bound to principals', () => {
  it("one principal neither sees nor answers another's question", async () => {
    const alice = await host('alice');
    const bob = await host('bob');
    const aliceCall = alice.callTool({ name: 'name', arguments: {} });
    const bobCall = bob.callTool({ name: 'name', arguments: {} });
    for (let i = 0; i < 200 && inbox.size < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(inbox.size).toBe(2);
    // Whom to tell: each question's own principal.
    expect(waitingFor.sort()).toEqual([principal('alice'), principal('bob')].sort());

    const asAlice = await signIn(principal('alice'));
    const asBob = await signIn(principal('bob'));
    const aliceSees = await questions(asAlice);
    const bobSees = await questions(asBob);
    expect(aliceSees).toHaveLength(1);
    expect(bobSees).toHaveLength(1);
    const bobsQuestion = (bobSees[0] as InboxQuestion).id;
    expect(aliceSees.map((q) => q.id)).not.toContain(bobsQuestion);
    // The local principal (a stdio gateway's) sees neither.
    expect(await questions(await signIn('local'))).toEqual([]);

    // Alice answering Bob's question is told it is not waiting, as for one that never was.
    expect((await answer(asAlice, bobsQuestion, 'mallory')).status).toBe(404);
    expect(inbox.size).toBe(2);

    expect((await answer(asBob, bobsQuestion, 'Bob')).status).toBe(204);
    expect((await answer(asAlice, (aliceSees[0] as InboxQuestion).id, 'Alice')).status).toBe(204);
    expect(textOf(await bobCall)).toBe('hello Bob');
    expect(textOf(await aliceCall)).toBe('hello Alice');
    await alice.close();
    await bob.close();
  }, 60_000);
});
