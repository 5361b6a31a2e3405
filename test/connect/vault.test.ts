import { describe, expect, it } from 'vitest';
import { createVault } from '../../src/connect/vault.ts';
import { generateKeySecret } from '../../src/server/seal.ts';
import { memoryStore } from '../../src/store/index.ts';

describe('vault', () => {
  const k1 = { id: 'v1', secret: generateKeySecret() };
  it('round-trips, encrypted at rest', async () => {
    const store = memoryStore();
    const vault = createVault(store, { keys: [k1] });
    const alice = { principal: 'https://idp|alice', provider: 'calendar' };
    await vault.put(alice, { access_token: 'tok-secret-123', refresh_token: 'r-456' }, 60_000);
    expect(await vault.get(alice)).toEqual({
      access_token: 'tok-secret-123',
      refresh_token: 'r-456',
    });
    const [key] = await store.findByTag('vault-principal:https://idp|alice');
    expect(JSON.stringify((await store.get(key as string))?.value)).not.toContain('tok-secret');
  });
  it('a row copied to another user or provider fails to decrypt', async () => {
    const store = memoryStore();
    const vault = createVault(store, { keys: [k1] });
    const alice = { principal: 'idp|alice', provider: 'calendar' };
    await vault.put(alice, 'secret', 60_000);
    const [aliceKey] = await store.findByTag('vault-principal:idp|alice');
    const row = (await store.get(aliceKey as string))?.value;
    // Copy Alice's ciphertext into Bob's slot, and into another provider's slot.
    for (const other of [
      { principal: 'idp|bob', provider: 'calendar' },
      { principal: 'idp|alice', provider: 'mail' },
    ]) {
      await vault.put(other, 'placeholder', 60_000);
      const [otherKey] = (await store.findByTag(`vault-principal:${other.principal}`)).filter(
        (k) => k !== aliceKey,
      );
      await store.delete(otherKey as string);
      await store.create(otherKey as string, row ?? null, { ttlMs: 60_000 });
      await expect(vault.get(other)).rejects.toThrow(/failed authentication/);
    }
  });
  it('rotates keys: old entries open until their key retires', async () => {
    let t = 0;
    const store = memoryStore({ now: () => t });
    const entry = { principal: 'p', provider: 'x' };
    await createVault(store, { keys: [k1] }).put(entry, 'old', 1e9);
    const k2 = { id: 'v2', secret: generateKeySecret() };
    const rotated = createVault(store, { keys: [k2, { ...k1, retireAt: 100 }] }, { now: () => t });
    expect(await rotated.get(entry)).toBe('old');
    t = 100;
    expect(await rotated.get(entry)).toBeUndefined();
  });
});
