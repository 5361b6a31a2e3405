/** Held calls: bounded per principal and per process, readable by index, expiring plainly. */
import { describe, expect, it } from 'vitest';
import { HeldCallError, HeldCalls } from '../../src/gateway/held.ts';

const ask = { method: 'elicitation/create', params: { message: 'm' } } as never;

describe('HeldCalls', () => {
  it('refuses past the per-principal and per-process limits, and frees a slot when one ends', () => {
    const held = new HeldCalls({ maxHeld: 3, maxHeldPerPrincipal: 2 });
    const a1 = held.start('alice');
    held.start('alice');
    expect(() => held.start('alice')).toThrow(/maxHeldPerPrincipal/);
    held.start('bob');
    expect(() => held.start('carol')).toThrow(/held\.maxHeld\)/);
    a1.expire('finished');
    expect(held.start('alice').principal).toBe('alice');
    held.closeAll();
    expect(held.size).toBe(0);
  });

  it('another principal cannot reach a call, and a forgotten call is said to be gone', () => {
    const held = new HeldCalls();
    const call = held.start('alice');
    expect(() => held.get(call.id, 'mallory')).toThrow(HeldCallError);
    expect(held.get(call.id, 'alice')).toBe(call);
    call.expire('finished');
    try {
      held.get(call.id, 'alice');
      expect.unreachable();
    } catch (error) {
      expect((error as HeldCallError).code).toBe('ELICIT_GATEWAY_HELD_GONE');
    }
  });

  it('events are read by index as often as asked; each question is answered once', async () => {
    const held = new HeldCalls();
    const call = held.start('alice');
    const first = call.question(ask);
    const read = call.next(1);
    const second = call.question(ask);
    expect((await call.next(0)).kind).toBe('ask');
    expect((await read).kind).toBe('ask');
    call.answer(0, { ok: 'one' });
    call.answer(0, { ok: 'again' });
    expect(await first).toEqual({ ok: 'one' });
    call.answer(1, { ok: 'two' });
    expect(await second).toEqual({ ok: 'two' });
    call.end({ kind: 'result', result: { done: true } });
    expect(await call.next(2)).toEqual({ kind: 'result', result: { done: true } });
    expect(await call.next(2)).toEqual({ kind: 'result', result: { done: true } });
    held.closeAll();
  });

  it('a call nobody comes back for expires: the server is told to stop, the host reads why', async () => {
    const held = new HeldCalls({ idleMs: 30 });
    const call = held.start('alice');
    void call.question(ask);
    await new Promise((r) => setTimeout(r, 80));
    expect(call.abort.signal.aborted).toBe(true);
    expect(held.size).toBe(0);
    const end = await call.next(1);
    expect(end.kind).toBe('error');
    expect((end as { error: HeldCallError }).error.code).toBe('ELICIT_GATEWAY_HELD_GONE');
  });

  it('a call may not push more questions than its limit', async () => {
    const held = new HeldCalls({ maxQuestions: 1 });
    const call = held.start('alice');
    void call.question(ask);
    await expect(call.question(ask)).rejects.toMatchObject({ code: 'ELICIT_GATEWAY_HELD_LIMIT' });
    held.closeAll();
  });
});
