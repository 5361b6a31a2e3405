import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import { createServer, httpEntry } from '../../src/server/index.ts';
import {
  canonicalBase64url,
  checkKeyring,
  createSealer,
  generateKeySecret,
  KeyringError,
  RequestBinding,
  rotateKeyring,
  type StateError,
  type StateFailure,
} from '../../src/server/seal.ts';
import { answer, callTool } from '../support/mrtr.ts';

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

  // Each check runs on a sealer that remembers the states it sealed (they open without
  // decrypting) and on one that remembers none (every state is decrypted).
  describe.each([
    ['remembering what it sealed', undefined],
    ['remembering nothing', 0],
  ])('%s', (_mode, rememberChars) => {
    const sealer = createSealer({ keyring: { keys: [k1] }, rememberChars });

    it('round-trips, encrypted, bound and expiring', () => {
      const state = sealer.seal({ answers: { trip: { name: 'Ann' } } }, bind, 2);
      expect(state.startsWith('e2.k1.')).toBe(true);
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
      const timed = createSealer({
        keyring: { keys: [k1] },
        ttlMs: 1000,
        now: () => t,
        rememberChars,
      });
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
      // Every part: salt, IV, ciphertext and tag.
      for (let i = 0; i < raw.length; i += 5) {
        const flipped = Buffer.from(raw);
        flipped[i] = (flipped[i] as number) ^ 1;
        expect(reason(() => sealer.open(`e2.k1.${flipped.toString('base64url')}`, bind))).toBe(
          'tampered_or_other_request',
        );
      }
      expect(reason(() => sealer.open(state.slice(0, -4), bind))).toMatch(
        /^(malformed|tampered_or_other_request)$/,
      );
      expect(reason(() => sealer.open(`${state}-TAMPERED`, bind))).toMatch(
        /^(malformed|tampered_or_other_request)$/,
      );
      // Standard base64 is refused; it only differs from base64url when it has '+', '/' or '='.
      const standard = raw.toString('base64');
      if (standard !== raw.toString('base64url'))
        expect(reason(() => sealer.open(`e2.k1.${standard}`, bind))).toMatch(/malformed/);
      expect(reason(() => sealer.open(`e2.k1.${raw.toString('base64url')}+`, bind))).toMatch(
        /^(malformed|tampered_or_other_request)$/,
      );
      expect(reason(() => sealer.open(`${state}==`, bind))).toBe('malformed');
      expect(reason(() => sealer.open(`e2.k1.${body.slice(0, 40)}`, bind))).toBe('malformed');
      expect(reason(() => sealer.open('e2.k1.', bind))).toBe('malformed');
      expect(reason(() => sealer.open('garbage', bind))).toBe('malformed');
      expect(reason(() => sealer.open(`e3.k1.${body}`, bind))).toBe('malformed');
      expect(reason(() => sealer.open(`e2.zz.${body}`, bind))).toBe('unknown_key');
      expect(reason(() => sealer.open('x'.repeat(1_000_000), bind))).toBe('oversize');
      expect(reason(() => sealer.open(null, bind))).toBe('not_string');
      expect(reason(() => sealer.open(42, bind))).toBe('not_string');
      expect(reason(() => sealer.open({ state }, bind))).toBe('not_string');
    });
  });

  it('accepts exactly one written form of a state: the canonical base64url of its bytes', () => {
    const decodesBack = (t: string) =>
      /^[A-Za-z0-9_-]+$/.test(t) && Buffer.from(t, 'base64url').toString('base64url') === t;
    const alphabet = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=. '.split(''),
    );
    fc.assert(
      fc.property(fc.string({ unit: alphabet, minLength: 0, maxLength: 12 }), (t) => {
        expect(canonicalBase64url(t)).toBe(decodesBack(t));
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat(63), (bytes, bits) => {
        const t = Buffer.from(bytes).toString('base64url');
        expect(canonicalBase64url(t)).toBe(t.length > 0);
        // The same bytes spelled with stray bits in the last character are refused.
        const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(
          t.slice(-1),
        );
        const other = `${t.slice(0, -1)}${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[last ^ (bits & (t.length % 4 === 2 ? 15 : t.length % 4 === 3 ? 3 : 0))]}`;
        if (t.length > 0) expect(canonicalBase64url(other)).toBe(other === t);
      }),
    );
  });

  it('enforces the full 16-byte tag', () => {
    const state = sealer.seal({ a: 1 }, bind, 1);
    const raw = Buffer.from(state.slice(6), 'base64url');
    // Tags cut to 12, 8 and 4 bytes must not be accepted.
    for (const cut of [4, 8, 12]) {
      const short = raw.subarray(0, raw.length - cut);
      expect(reason(() => sealer.open(`e2.k1.${short.toString('base64url')}`, bind))).toBe(
        'tampered_or_other_request',
      );
    }
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
    expect(rotated.seal({}, bind, 1).startsWith('e2.k2.')).toBe(true);
    t = 500;
    expect(reason(() => rotated.open(state, bind))).toBe('retired_key');
    const replica = createSealer({ keyring: { keys: [k2] }, now: () => t });
    expect(replica.open(rotated.seal({ v: 2 }, bind, 3), bind).round).toBe(3);
  });

  describe('states remembered by the process that sealed them', () => {
    it('open once from memory, then are decrypted; each open gets its own payload', () => {
      const own = createSealer({ keyring: { keys: [k1] } });
      const state = own.seal({ answers: { trip: { name: 'Ann' } } }, bind, 2);
      expect(own.rememberedChars).toBeGreaterThan(state.length);
      const first = own.open<{ answers: { trip: { name: string } } }>(state, bind);
      expect(own.rememberedChars).toBe(0);
      first.payload.answers.trip.name = 'changed';
      const again = own.open<{ answers: unknown }>(state, bind);
      expect(again.payload).toEqual({ answers: { trip: { name: 'Ann' } } });
      expect(again.round).toBe(2);
    });

    it('a refused presentation does not use the state up', () => {
      const own = createSealer({ keyring: { keys: [k1] } });
      const state = own.seal({ v: 1 }, bind, 1);
      const held = own.rememberedChars;
      for (const other of [
        { ...bind, principal: 'iss|bob' },
        { ...bind, args: { city: 'Oslo', n: 2, extra: true } },
        { ...bind, name: 'book ' },
      ])
        expect(reason(() => own.open(state, other))).toBe('tampered_or_other_request');
      expect(own.rememberedChars).toBe(held);
      expect(own.open(state, bind).payload).toEqual({ v: 1 });
    });

    it('still expire, and still refuse a retired key', () => {
      let t = 0;
      const timed = createSealer({ keyring: { keys: [k1] }, ttlMs: 1000, now: () => t });
      const stale = timed.seal({}, bind, 1);
      t = 1000;
      expect(reason(() => timed.open(stale, bind))).toBe('expired');
      const retiring = createSealer({
        keyring: { keys: [{ ...k1, retireAt: 2000 }, k2] },
        now: () => t,
      });
      const state = retiring.seal({}, bind, 1);
      t = 2000;
      expect(reason(() => retiring.open(state, bind))).toBe('retired_key');
    });

    it('stay within their budget of characters, oldest forgotten first', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 4000 }),
          fc.array(fc.string({ maxLength: 300 }), { maxLength: 40 }),
          (budget, answers) => {
            const own = createSealer({ keyring: { keys: [k1] }, rememberChars: budget });
            const states = answers.map((a, i) => own.seal({ a }, bind, i));
            expect(own.rememberedChars).toBeLessThanOrEqual(budget);
            // Remembered or not, every state opens to what was sealed.
            for (const [i, state] of states.entries())
              expect(own.open(state, bind).payload).toEqual({ a: answers[i] });
            expect(own.rememberedChars).toBe(0);
          },
        ),
        { numRuns: 60 },
      );
    });

    it('refuses a budget that is not a whole number of characters', () => {
      for (const rememberChars of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
        expect(() => createSealer({ keyring: { keys: [k1] }, rememberChars })).toThrow(
          /rememberChars must be a whole number/,
        );
      // The server's option is the same budget.
      expect(() => createServer({ name: 's', version: '1', stateMemoryChars: -1 })).toThrow(
        expect.objectContaining({ code: 'ELICIT_LIMIT_INVALID' }),
      );
    });
  });

  it('a request’s binding opens and seals as the plain binding does, under every key id', () => {
    const request = () => new RequestBinding(bind.principal, bind.method, bind.name, bind.args);
    const old = createSealer({ keyring: { keys: [k1] } });
    const rotated = createSealer({ keyring: { keys: [k2, k1] } });
    // One binding opens a state under the old key id, then seals under the new: the additional
    // data it keeps follows the key id, both ways, and matches a plain binding's.
    const b = request();
    expect(rotated.open(old.seal({ v: 1 }, b, 1), b).payload).toEqual({ v: 1 });
    const next = rotated.seal({ v: 2 }, b, 2);
    expect(next.startsWith('e2.k2.')).toBe(true);
    expect(rotated.open(next, bind).payload).toEqual({ v: 2 });
    expect(rotated.open(old.seal({ v: 3 }, b, 3), b).round).toBe(3);
    expect(rotated.open(rotated.seal({ v: 4 }, bind, 4), request()).round).toBe(4);
    // Another audience with the same binding object: refused, not served from what it kept.
    const elsewhere = createSealer({ keyring: { keys: [k2] }, audience: 'https://other.example' });
    expect(reason(() => elsewhere.open(next, b))).toBe('tampered_or_other_request');
    for (const other of [
      new RequestBinding('iss|bob', bind.method, bind.name, bind.args),
      new RequestBinding(bind.principal, 'prompts/get', bind.name, bind.args),
      new RequestBinding(bind.principal, bind.method, 'cancel', bind.args),
      new RequestBinding(bind.principal, bind.method, bind.name, { city: 'Oslo', n: 3 }),
    ])
      expect(reason(() => rotated.open(next, other))).toBe('tampered_or_other_request');
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
    expect(() =>
      createSealer({ keyring: { keys: [k1, { id: 'k9', secret: k1.secret }] } }),
    ).toThrow(/same secret/);
    expect(() =>
      createSealer({ keyring: { keys: [{ id: 'k', secret: 'not base64!'.padEnd(43, '?') }] } }),
    ).toThrow(KeyringError);
    expect(() => checkKeyring({ keys: [{ ...k1, retireAt: 5 }] }, 10)).toThrow(/already retired/);
    expect(() => checkKeyring({ keys: [k1, { ...k2, retireAt: Number.NaN }] })).toThrow(/retireAt/);
    expect(() => createSealer({ keyring: { keys: [] } })).toThrow(/at least one key/);
    expect(() =>
      createSealer({ keyring: { keys: [k1] }, maxLength: 50 }).seal(
        { big: 'x'.repeat(100) },
        bind,
        1,
      ),
    ).toThrow(/over the 50 limit/);
  });

  it('binds the audience: services sharing a key cannot accept each other’s states', () => {
    const billing = createSealer({
      keyring: { keys: [k1] },
      audience: 'https://billing.example/mcp',
    });
    const notes = createSealer({ keyring: { keys: [k1] }, audience: 'https://notes.example/mcp' });
    const state = billing.seal({ v: 1 }, bind, 1);
    expect(billing.open(state, bind).payload).toEqual({ v: 1 });
    expect(reason(() => notes.open(state, bind))).toBe('tampered_or_other_request');
  });

  it('derives a key per salt and redraws the salt after sealsPerSalt seals', () => {
    const small = createSealer({ keyring: { keys: [k1] }, sealsPerSalt: 2 });
    const salts = [1, 2, 3, 4, 5].map((r) => {
      const state = small.seal({ r }, bind, r);
      expect(small.open(state, bind).round).toBe(r);
      return Buffer.from(state.slice(6), 'base64url').subarray(0, 16).toString('hex');
    });
    expect(new Set(salts).size).toBe(3);
    expect(salts[0]).toBe(salts[1]);
    expect(salts[2]).not.toBe(salts[1]);
    // Another replica (another salt) opens them too.
    const replica = createSealer({ keyring: { keys: [k1] } });
    expect(replica.open(small.seal({}, bind, 7), bind).round).toBe(7);
    expect(() => createSealer({ keyring: { keys: [k1] }, sealsPerSalt: 0 })).toThrow(
      /sealsPerSalt/,
    );
  });

  it('refuses states of the earlier format clearly', () => {
    const e1 = `e1.k1.${Buffer.alloc(60, 1).toString('base64url')}`;
    expect(reason(() => sealer.open(e1, bind))).toBe('old_format');
  });

  it('rotateKeyring puts the new key first and retires the others after the overlap', () => {
    const next = { id: 'k3', secret: generateKeySecret() };
    const rotated = rotateKeyring({ keys: [k1] }, next, 60_000);
    expect(rotated.keys.map((k) => k.id)).toEqual(['k3', 'k1']);
    const retireAt = rotated.keys[1]?.retireAt as number;
    expect(retireAt).toBeGreaterThan(Date.now());
    expect(retireAt).toBeLessThanOrEqual(Date.now() + 60_000);
    const before = createSealer({ keyring: { keys: [k1] } }).seal({ v: 1 }, bind, 1);
    expect(createSealer({ keyring: rotated }).open(before, bind).payload).toEqual({ v: 1 });
  });
});

describe('the server binds its audience', () => {
  it('a state from one service is refused by another that shares the keyring', async () => {
    const make = (name: string, audience?: string) =>
      httpEntry(
        createServer({
          name,
          version: '1',
          keyring: { keys: [k1] },
          audience,
          onWarning: () => {},
        }).tool('t', {}, async (_a, ask) => {
          await ask.form('k', form({ v: text() }));
          return name;
        }),
      );
    const billing = make('billing');
    const notes = make('notes');
    const state = (await callTool(billing, 't')).result?.requestState as string;
    const params = { requestState: state, inputResponses: answer('k', { v: 'x' }) };
    expect((await callTool(notes, 't', params)).error?.code).toBe(-32602);
    expect((await callTool(make('notes', 'billing'), 't', params)).result?.content?.[0]?.text).toBe(
      'notes',
    );
    expect((await callTool(billing, 't', params)).result?.content?.[0]?.text).toBe('billing');
  });
});
