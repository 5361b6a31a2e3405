/**
 * An inbox behind a proxy or load balancer (`publicUrl`): replicas sharing one store answer under
 * the public address, links are made on it, the session cookie is `__Host-` and Secure on https,
 * answers need the public Origin; an inbox beyond loopback without an https address is refused.
 */
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { Inbox } from '../../src/gateway/index.ts';
import { memoryMessageBus, memoryStore } from '../../src/store/index.ts';

const started: Inbox[] = [];
afterAll(async () => {
  for (const inbox of started) await inbox.close();
});

/** One request to a replica's own address, as the proxy forwards it (Host: the public name). */
function raw(
  inbox: Inbox,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, inbox.address),
      { method: body === undefined ? 'GET' : 'POST', headers },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('an inbox behind a public address', () => {
  it('refuses to listen beyond loopback without an https publicUrl, and a plain-http public name', async () => {
    await expect(Inbox.start({ host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'ELICIT_GATEWAY_INBOX_CONFIG',
    });
    await expect(Inbox.start({ publicUrl: 'http://inbox.example.com' })).rejects.toMatchObject({
      code: 'ELICIT_GATEWAY_INBOX_CONFIG',
    });
  });

  it('replicas answer under the public name; a __Host- Secure cookie; the public Origin only', async () => {
    const store = memoryStore();
    const bus = memoryMessageBus();
    const publicUrl = 'https://inbox.test/ignored/path';
    let id = '';
    const a = await Inbox.start({ store, bus, publicUrl, onWaiting: (q) => (id = q.id) });
    const b = await Inbox.start({ store, bus, publicUrl });
    started.push(a, b);
    expect(a.url.href).toBe('https://inbox.test/inbox');
    const asked = a.ask(
      { server: 's', tool: 't', message: 'Colour?', mode: 'form', requestedSchema: {} },
      { principal: 'local' },
    );
    const link = new URL(await a.link());
    expect(link.origin).toBe('https://inbox.test');
    const host = { host: 'inbox.test' };
    // Signed in through replica B (the balancer's choice), from a link minted by A.
    const signIn = await raw(b, `${link.pathname}${link.search}`, host);
    expect(signIn.status).toBe(303);
    const set = String(signIn.headers['set-cookie']);
    expect(set).toMatch(
      /^__Host-elicit-inbox=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\//,
    );
    expect(set).toMatch(/; Secure$/);
    const cookie = set.split(';')[0] as string;
    // The plain-http cookie name does not sign anyone in here.
    const plain = cookie.replace('__Host-elicit-inbox', 'elicit_inbox');
    expect((await raw(a, '/inbox/questions', { ...host, cookie: plain })).status).toBe(401);
    expect((await raw(a, '/inbox/questions', { ...host, cookie })).status).toBe(200);
    expect((await raw(a, '/inbox/questions', { host: 'evil.example', cookie })).status).toBe(421);

    expect(id).not.toBe('');
    // The proxy may name the address it forwards to: that is the replica's own, also accepted.
    const page = await (await fetch(a.address, { headers: { cookie } })).text();
    const csrf = /name="csrf" content="([^"]+)"/.exec(page)?.[1] as string;
    const answer = JSON.stringify({ id, action: 'accept', content: { colour: 'red' } });
    const post = (origin: string) =>
      raw(b, '/inbox/answer', { ...host, cookie, origin, 'x-elicit-csrf': csrf }, answer);
    expect((await post(a.address.origin)).status).toBe(403);
    expect((await post('https://inbox.test')).status).toBe(204);
    expect(await asked).toEqual({ action: 'accept', content: { colour: 'red' } });
  });

  it("past maxSessions a sign-in signs one of the principal's other browsers out, never the person", async () => {
    const inbox = await Inbox.start({ maxSessions: 2 });
    started.push(inbox);
    const cookies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await fetch(await inbox.link(), { redirect: 'manual' });
      expect(r.status).toBe(303);
      cookies.push((r.headers.get('set-cookie') ?? '').split(';')[0] as string);
    }
    const statuses = await Promise.all(
      cookies.map(
        async (cookie) =>
          (await fetch(new URL('/inbox/questions', inbox.url), { headers: { cookie } })).status,
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses[2]).toBe(200);
  });
});
