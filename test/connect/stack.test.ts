import { describe, expect, it } from 'vitest';
import { createConnectStack, devLogin, vaultEntryName } from '../../src/connect/index.ts';
import { generateKeySecret } from '../../src/server/index.ts';
import { memoryStore } from '../../src/store/index.ts';

describe('createConnectStack', () => {
  it('wires records, vault and pages from one store and one keyring, as the URL-mode port', async () => {
    const store = memoryStore();
    const stack = createConnectStack({
      baseUrl: 'http://127.0.0.1:8080',
      store,
      keyring: { keys: [{ id: 'v1', secret: generateKeySecret() }] },
      login: devLogin({ fixedPrincipal: 'local' }),
      providers: {},
    });
    expect(stack.store).toBe(store);
    expect(stack.records.store).toBe(store);
    const record = await stack.records.create({
      principal: 'local',
      clientId: undefined,
      purpose: 'secret',
      subject: 'api_key',
      label: 'API key',
      description: undefined,
      origin: undefined,
    });
    expect(stack.link(record.id)).toBe(`http://127.0.0.1:8080/elicit/${record.id}`);
    expect(await stack.readEntry('local', 'secret', 'api_key')).toBeUndefined();
    await stack.vault.put(
      { principal: 'local', provider: vaultEntryName('secret', 'api_key') },
      'k-123',
      60_000,
    );
    expect(await stack.readEntry('local', 'secret', 'api_key')).toBe('k-123');
    // A secret is never read as a provider's tokens of the same name.
    expect(await stack.readEntry('local', 'connect', 'api_key')).toBeUndefined();
    expect(stack.hasProvider('calendar')).toBe(false);
    await stack.records.finish(record.id, 'complete');
    expect([await stack.records.claim(record.id), await stack.records.claim(record.id)]).toEqual([
      true,
      false,
    ]);
  });
  it('refuses an unusable vault keyring when it is built', () => {
    const secret = generateKeySecret();
    expect(() =>
      createConnectStack({
        baseUrl: 'http://127.0.0.1:8080',
        store: memoryStore(),
        keyring: {
          keys: [
            { id: 'a', secret },
            { id: 'b', secret },
          ],
        },
        login: devLogin({ fixedPrincipal: 'local' }),
        providers: {},
      }),
    ).toThrow(/have the same secret/);
  });
});
