import { createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createVault } from '../../src/connect/vault.ts';
import {
  aeadOpen,
  aeadSeal,
  checkKeyring,
  generateKeySecret,
  KeyringError,
  loadKeyring,
  TAG_BYTES,
} from '../../src/kernel/keyring.ts';
import { createSealer } from '../../src/server/seal.ts';
import { memoryStore } from '../../src/store/index.ts';

const a = { id: 'a', secret: generateKeySecret() };
const b = { id: 'b', secret: generateKeySecret() };

describe('one keyring for sealed state and the vault', () => {
  const refusals: [
    string,
    { keys: { id: string; secret: string; retireAt?: number }[] },
    RegExp,
  ][] = [
    ['a short secret', { keys: [{ id: 'a', secret: 'c2hvcnQ' }] }, /exactly 32 bytes \(got 5\)/],
    ['an id used twice', { keys: [a, { ...b, id: 'a' }] }, /key id "a" appears twice/],
    ['one secret under two ids', { keys: [a, { ...a, id: 'c' }] }, /"a" and "c" have the same/],
    ['a retired first key', { keys: [{ ...a, retireAt: 5 }, b] }, /"a" .* already retired/],
    ['no key', { keys: [] }, /at least one key/],
  ];
  for (const [what, keyring, message] of refusals) {
    it(`refuses ${what}, in the sealer and in the vault alike`, () => {
      const sealer = () => createSealer({ keyring, now: () => 10 });
      const vault = () => createVault(memoryStore(), keyring, { now: () => 10 });
      for (const make of [sealer, vault]) {
        expect(make).toThrow(KeyringError);
        expect(make).toThrow(message);
      }
      try {
        checkKeyring(keyring, 10);
      } catch (error) {
        expect((error as KeyringError).code).toBe('ELICIT_KEYRING_INVALID');
      }
    });
  }

  it('loads each key once; a retired key is found but not usable', () => {
    const ring = loadKeyring({ keys: [b, { ...a, retireAt: 100 }] }, 0);
    expect(ring.current.id).toBe('b');
    expect(ring.usable('a', 99)?.id).toBe('a');
    expect(ring.usable('a', 100)).toBeUndefined();
    expect(ring.find('a')?.retireAt).toBe(100);
    expect(ring.usable('nope', 0)).toBeUndefined();
  });
});

describe('AES-256-GCM with a 16-byte tag', () => {
  const key = createSecretKey(Buffer.alloc(32, 7));
  const iv = new Uint8Array(12).fill(1);
  const aad = Buffer.from('context');

  it('round-trips and appends exactly a 16-byte tag', () => {
    const sealed = aeadSeal(key, iv, aad, 'hello');
    expect(sealed.length).toBe(5 + TAG_BYTES);
    expect(aeadOpen(key, iv, aad, sealed)?.toString('utf8')).toBe('hello');
  });

  it('refuses a truncated tag, other additional data, a flipped bit and a wrong IV size', () => {
    const sealed = aeadSeal(key, iv, aad, 'hello');
    // A 12-byte tag would be accepted by a decipher left at its defaults.
    expect(aeadOpen(key, iv, aad, sealed.subarray(0, sealed.length - 4))).toBeUndefined();
    expect(aeadOpen(key, iv, aad, sealed.subarray(0, TAG_BYTES - 1))).toBeUndefined();
    expect(aeadOpen(key, iv, Buffer.from('other'), sealed)).toBeUndefined();
    const flipped = Buffer.from(sealed);
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(aeadOpen(key, iv, aad, flipped)).toBeUndefined();
    expect(aeadOpen(key, new Uint8Array(16), aad, sealed)).toBeUndefined();
    expect(() => aeadSeal(key, new Uint8Array(8), aad, 'x')).toThrow(RangeError);
  });
});
