/**
 * The vault: third-party tokens and secrets, encrypted at rest with the kernel's AES-256-GCM
 * (16-byte tag) under a keyring, with additional authenticated data = principal + provider +
 * key id, so a row copied to another user or provider fails to decrypt. Values never leave the
 * server. Entry names are formed by `vaultEntryName` and `vaultStoreKey`, nowhere else.
 */
import { ElicitError } from '../errors.ts';
import { ELICIT_VAULT_CORRUPT } from '../kernel/error-codes.ts';
import { aeadOpen, aeadSeal, IV_BYTES, type Keyring, loadKeyring } from '../kernel/keyring.ts';
import { pooledRandom } from '../kernel/random.ts';
import type { Json, Store } from '../kernel/store.ts';
import type { RecordPurpose } from '../server/url-port.ts';

export interface VaultEntry {
  readonly principal: string;
  readonly provider: string;
}

export interface Vault {
  put(entry: VaultEntry, secret: Json, ttlMs: number): Promise<void>;
  get<T extends Json>(entry: VaultEntry): Promise<T | undefined>;
  delete(entry: VaultEntry): Promise<void>;
}

export class VaultError extends ElicitError {}

/**
 * The vault entry behind a URL-mode subject: a provider's tokens under the provider's name, a
 * secret under `secret:<name>` (so a secret can never be read as a provider's tokens).
 */
export function vaultEntryName(purpose: RecordPurpose, subject: string): string {
  return purpose === 'connect' ? subject : `secret:${subject}`;
}

/** The store key of an entry: both parts base64url, so no name can run into the other. */
function vaultStoreKey(e: VaultEntry): string {
  return `vault:${Buffer.from(e.principal).toString('base64url')}:${Buffer.from(e.provider).toString('base64url')}`;
}

const aad = (e: VaultEntry, kid: string) =>
  Buffer.from(`elicit-vault\u0000${e.principal}\u0000${e.provider}\u0000${kid}`);

/** A vault on `store`, encrypting under `keyring` (checked here: a KeyringError if unusable). */
export function createVault(
  store: Store,
  keyring: Keyring,
  options: { now?: () => number } = {},
): Vault {
  const now = options.now ?? Date.now;
  const keys = loadKeyring(keyring, now());
  return {
    async put(entry, secret, ttlMs) {
      const iv = pooledRandom(IV_BYTES);
      const { id, key: sealKey } = keys.current;
      const body = aeadSeal(sealKey, iv, aad(entry, id), JSON.stringify(secret));
      const record = {
        k: id,
        iv: Buffer.from(iv).toString('base64url'),
        c: body.toString('base64url'),
      };
      const key = vaultStoreKey(entry);
      // Replace: delete then create (tokens are rewritten on refresh).
      await store.delete(key);
      await store.create(key, record, { ttlMs, tags: [`vault-principal:${entry.principal}`] });
    },
    async get<T extends Json>(entry: VaultEntry): Promise<T | undefined> {
      const stored = await store.get<{ k: string; iv: string; c: string }>(vaultStoreKey(entry));
      if (stored === undefined) return undefined;
      const { k, iv, c } = stored.value;
      const key = keys.usable(k, now());
      if (key === undefined) return undefined;
      const raw = Buffer.from(c, 'base64url');
      if (raw.length < 17)
        throw new VaultError('ELICIT_VAULT_CORRUPT', 'a vault entry is damaged.');
      const plain = aeadOpen(key.key, Buffer.from(iv, 'base64url'), aad(entry, k), raw);
      if (plain === undefined)
        throw new VaultError(
          ELICIT_VAULT_CORRUPT,
          'a vault entry failed authentication: it was altered or belongs to another user or provider.',
        );
      try {
        return JSON.parse(plain.toString('utf8')) as T;
      } catch {
        throw new VaultError('ELICIT_VAULT_CORRUPT', 'a vault entry is damaged.');
      }
    },
    async delete(entry) {
      await store.delete(vaultStoreKey(entry));
    },
  };
}
