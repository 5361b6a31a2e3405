/**
 * What the connect pages answer when something under them fails: a store failure is a 503 page
 * (Retry-After, nothing saved, reload), anything else a plain 500 page; neither shows the
 * error's text, and `log` gets the error for the operator.
 */
import { describe, expect, it } from 'vitest';
import { type ConnectEvent, createConnectApp } from '../../src/connect/index.ts';
import type { Login } from '../../src/connect/login.ts';
import { storeFailure } from '../../src/store/types.ts';
import { connectState } from '../support/kit.ts';

const SECRET_TEXT = 'ECONNREFUSED 10.0.0.7:6379 at Socket.connect (internal stack)';

function app(events: ConnectEvent[]) {
  // A login whose pages fail the two ways a route can: its store, or a bug.
  const login: Login = {
    start: (next) => `/elicit/login?next=${encodeURIComponent(next)}`,
    mount(hono) {
      hono.get('/elicit/login/store', () => {
        throw storeFailure('Redis', 'read a session', new Error(SECRET_TEXT));
      });
      hono.get('/elicit/login/bug', () => {
        throw new TypeError(SECRET_TEXT);
      });
    },
  };
  return createConnectApp({
    baseUrl: 'http://127.0.0.1:1',
    ...connectState(),
    login,
    providers: {},
    log: (e) => void events.push(e),
  });
}

describe('connect pages when something under them fails', () => {
  it('a store failure is a 503 page that says to reload, without the driver’s text', async () => {
    const events: ConnectEvent[] = [];
    const res = await app(events).fetch(new Request('http://127.0.0.1:1/elicit/login/store'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).toMatch(/nothing was saved/i);
    expect(html).not.toMatch(/ECONNREFUSED|Redis|stack/);
    expect(events).toEqual([
      {
        type: 'store_failed',
        what: 'store',
        error: expect.objectContaining({ code: 'ELICIT_STORE_UNAVAILABLE' }),
      },
    ]);
  });

  it('any other failure is a plain 500 page, without the error’s text', async () => {
    const events: ConnectEvent[] = [];
    const res = await app(events).fetch(new Request('http://127.0.0.1:1/elicit/login/bug'));
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(html).toMatch(/Something went wrong/);
    expect(html).not.toMatch(/ECONNREFUSED|TypeError|stack/);
    expect(events.map((e) => e.type)).toEqual(['page_failed']);
  });
});
