/**
 * The message buses elicit/store exports (the completion events of elicit/connect travel on
 * them too): a message published by one process's bus reaches every subscriber on the channel,
 * through real Redis and PostgreSQL, and what the bus's reader refuses never reaches a listener.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redisBus as completionBus } from '../../src/connect/completion.ts';
import {
  type MessageBus,
  memoryMessageBus,
  postgresMessageBus,
  redisMessageBus,
} from '../../src/store/index.ts';

const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

async function heard<T>(bus: MessageBus<T>, n: number, send: () => Promise<void>): Promise<T[]> {
  const got: T[] = [];
  const stop = bus.subscribe((m) => got.push(m));
  await send();
  for (let i = 0; i < 100 && got.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  stop();
  return got;
}

type Note = { question: string; n: number };
const read = (v: unknown): Note | undefined => {
  const m = v as Partial<Note> | null;
  return typeof m?.question === 'string' && typeof m.n === 'number'
    ? { question: m.question, n: m.n }
    : undefined;
};

describe('message buses', () => {
  it('memory: a message reaches the subscribers; a refused one does not', async () => {
    const bus = memoryMessageBus<Note>(read);
    const got = await heard(bus, 1, async () => {
      await bus.publish({ question: 'q', n: 1 });
      await bus.publish({ nonsense: true } as unknown as Note);
    });
    expect(got).toEqual([{ question: 'q', n: 1 }]);
    await bus.close();
  });

  for (const [name, open] of [
    [
      'Redis',
      (channel: string) => redisMessageBus<Note>({ channel: `elicit-test:${channel}`, read }),
    ],
    [
      'PostgreSQL',
      (channel: string) =>
        postgresMessageBus<Note>({ url: POSTGRES_URL, channel: `t_${channel}`, read }),
    ],
  ] as const) {
    it(`${name}: a payload published on one bus reaches the other; garbage is dropped`, async () => {
      const channel = randomUUID().replaceAll('-', '').slice(0, 16);
      const a = await open(channel);
      const b = await open(channel);
      try {
        const got = await heard(b, 2, async () => {
          await a.publish({ nonsense: 1 } as unknown as Note);
          await a.publish({ question: 'abc', n: 7 });
          await b.publish({ question: 'own', n: 8 });
        });
        expect(got).toEqual([
          { question: 'abc', n: 7 },
          { question: 'own', n: 8 },
        ]);
      } finally {
        await a.close();
        await b.close();
      }
    });
  }

  it('completion events keep their wire form ({"id","status"}) on the shared bus', async () => {
    const channel = `elicit-test:${randomUUID()}`;
    const events = await completionBus({ channel });
    const raw = await redisMessageBus({ channel });
    // The completion bus hears its own events too (r1 comes back to it): listen from the start.
    const own: unknown[] = [];
    events.subscribe((e) => own.push(e));
    try {
      const got = await heard(raw, 1, () =>
        events.publish({ id: 'r1', status: 'complete', extra: 'x' } as never),
      );
      expect(got).toEqual([{ id: 'r1', status: 'complete' }]);
      await raw.publish({ id: 'r2', status: 'bogus' });
      await raw.publish({ id: 'r3', status: 'declined' });
      for (let i = 0; i < 100 && own.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(own).toEqual([
        { id: 'r1', status: 'complete' },
        { id: 'r3', status: 'declined' },
      ]);
    } finally {
      await events.close();
      await raw.close();
    }
  });
});
