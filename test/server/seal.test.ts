import { describe, expect, it } from 'vitest';
import {
  createSealer,
  generateKeySecret,
  type StateError,
  type StateFailure,
} from '../../src/server/seal.ts';

const k1 = { id: 'k1', secret: generateKeySecret() };
const k2 = { id: 'k2', secret: generateKeySecret() };
const bind = {
  principal: 'iss|alice',
  method: 'tools/call',
  name: 'book',
  args: { city: 'Oslo', n: 2 },
};

function reason(fn: () => unknown): StateFailure | undefined {
  try {
    fn();
  } catch (error) {
    return (error as StateError).reason;
  }
  return undefined;
}

describe('sealed requestState', () => {
  const sealer = createSealer({ keyring: { keys: [k1] } });

  it('round-trips, encrypted, bound and expiring', () => {
    const state = sealer.seal({ answers: { trip: { name: 'Ann' } } }, bind, 2);
    expect(state.startsWith('e1.k1.')).toBe(true);
    expect(state).not.toContain('Ann');
    expect(Buffer.from(state.slice(6), 'base64url').toString('latin1')).not.toContain('Ann');
    const opened = sealer.open<{ answers: unknown }>(state, {
      ...bind,
      args: { n: 2, city: 'Oslo' },
    });
    expect(opened.payload).toEqual({ answers: { trip: { name: 'Ann' } } });
    expect(opened.round).toBe(2);
  });

  it('refuses another principal, method, name or arguments', () => {
    const state = sealer.seal({}, bind, 1);
    expect(reason(() => sealer.open(state, { ...bind, principal: 'iss|bob' }))).toBe(
      'tampered_or_other_request',
    );
    expect(reason(() => sealer.open(state, { ...bind, method: 'prompts/get' }))).toBe(
      'tampered_or_other_request',
    );
    expect(reason(() => sealer.open(state, { ...bind, name: 'cancel' }))).toBe(
      'tampered_or_other_request',
    );
    expect(reason(() => sealer.open(state, { ...bind, args: { city: 'Bergen', n: 2 } }))).toBe(
      'tampered_or_other_request',
    );
  });

  it('refuses expired states', () => {
    let t = 1_000_000;
    const timed = createSealer({ keyring: { keys: [k1] }, ttlMs: 1000, now: () => t });
    const state = timed.seal({}, bind, 1);
    t += 999;
    expect(timed.open(state, bind).round).toBe(1);
    t += 1;
    expect(reason(() => timed.open(state, bind))).toBe('expired');
  });

  it('refuses every kind of damage', () => {
    const state = sealer.seal({ a: 1 }, bind, 1);
    const body = state.slice(6);
    const raw = Buffer.from(body, 'base64url');
    for (let i = 0; i < raw.length; i += 7) {
      const flipped = Buffer.from(raw);
      flipped[i] = (flipped[i] as number) ^ 1;
      expect(reason(() => sealer.open(`e1.k1.${flipped.toString('base64url')}`, bind))).toBe(
        'tampered_or_other_request',
      );
    }
    expect(reason(() => sealer.open(state.slice(0, -4), bind))).toMatch(
      /^(malformed|tampered_or_other_request)$/,
    );
    expect(reason(() => sealer.open(`${state}-TAMPERED`, bind))).toMatch(
      /^(malformed|tampered_or_other_request)$/,
    );
    expect(reason(() => sealer.open(`e1.k1.${raw.toString('base64')}`, bind))).toMatch(/malformed/);
    expect(reason(() => sealer.open(`${state}==`, bind))).toBe('malformed');
    expect(reason(() => sealer.open(`e1.k1.${body.slice(0, 30)}`, bind))).toBe('malformed');
    expect(reason(() => sealer.open('e1.k1.', bind))).toBe('malformed');
    expect(reason(() => sealer.open('garbage', bind))).toBe('malformed');
    expect(reason(() => sealer.open(`e2.k1.${body}`, bind))).toBe('malformed');
    expect(reason(() => sealer.open(`e1.zz.${body}`, bind))).toBe('unknown_key');
    expect(reason(() => sealer.open('x'.repeat(1_000_000), bind))).toBe('oversize');
    expect(reason(() => sealer.open(null, bind))).toBe('not_string');
    expect(reason(() => sealer.open(42, bind))).toBe('not_string');
    expect(reason(() => sealer.open({ state }, bind))).toBe('not_string');
  });

  it('enforces the full 16-byte tag', () => {
    const state = sealer.seal({ a: 1 }, bind, 1);
    const raw = Buffer.from(state.slice(6), 'base64url');
    const short = raw.subarray(0, raw.length - 4); // a 12-byte tag must not be accepted
    expect(reason(() => sealer.open(`e1.k1.${short.toString('base64url')}`, bind))).toBe(
      'tampered_or_other_request',
    );
  });

  it('rotates keys with an overlap window, and replicas share a keyring', () => {
    let t = 0;
    const old = createSealer({ keyring: { keys: [k1] }, now: () => t });
    const state = old.seal({ v: 1 }, bind, 1);
    const rotated = createSealer({
      keyring: { keys: [k2, { ...k1, retireAt: 500 }] },
      now: () => t,
    });
    expect(rotated.open(state, bind).payload).toEqual({ v: 1 });
    expect(rotated.seal({}, bind, 1).startsWith('e1.k2.')).toBe(true);
    t = 500;
    expect(reason(() => rotated.open(state, bind))).toBe('retired_key');
    const replica = createSealer({ keyring: { keys: [k2] }, now: () => t });
    expect(replica.open(rotated.seal({ v: 2 }, bind, 3), bind).round).toBe(3);
  });

  it('keeps a three-step journal small', () => {
    const journal = {
      a: { trip: { action: 'accept', content: { name: 'Ann', seat: 'w', bags: 1 } } },
      s: { booked: 'BK-1234' },
      k: ['trip', 'pay', 'confirm'],
    };
    expect(sealer.seal(journal, bind, 3).length).toBeLessThanOrEqual(600);
  });

  it('refuses bad keys with a clear error', () => {
    expect(() => createSealer({ keyring: { keys: [{ id: 'k', secret: 'c2hvcnQ' }] } })).toThrow(
      /must be exactly 32 bytes/,
    );
    expect(() =>
      createSealer({ keyring: { keys: [{ id: 'bad id', secret: k1.secret }] } }),
    ).toThrow(/key id/);
    expect(() => createSealer({ keyring: { keys: [k1, k1] } })).toThrow(/appears twice/);
    expect(() => createSealer({ keyring: { keys: [] } })).toThrow(/at least one key/);
    expect(() =>
      createSealer({ keyring: { keys: [k1] }, maxLength: 50 }).seal(
        { big: 'x'.repeat(100) },
        bind,
        1,
      ),
    ).toThrow(/over the 50 limit/);
  });
});
