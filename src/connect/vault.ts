/**
 * The vault: third-party tokens and secrets, encrypted at rest with the kernel's AES-256-GCM
 * (16-byte tag) under a keyring, with additional authenticated data = principal + entry name +
 * key id (a JSON array, so no part can run into the next), so a row copied to another user or
 * entry fails to decrypt. Values never leave the server. Entry names are formed by
 * `vaultEntryName`, `recordEntryName` and `vaultStoreKey`, nowhere else, each injective in its
 * parts (kernel/keys.ts). Rows written before this format (no `v: 2`) read as absent.
 */
import { ElicitError } from '../errors.ts';
import { ELICIT_VAULT_CORRUPT } from '../kernel/error-codes.ts';
import { aeadOpen, aeadSeal, IV_BYTES, type Keyring, loadKeyring } from '../kernel/keyring.ts';
import { joinKey } from '../kernel/keys.ts';
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
 * The vault entry behind a URL-mode subject: `["connect","<provider>"]` for a provider's tokens,
 * `["secret","<name>"]` for a secret, so a secret can never be read as a provider's tokens
 * whatever either is called.
 */
export function vaultEntryName(purpose: RecordPurpose, subject: string): string {
  return joinKey(purpose, subject);
}

/**
 * The vault entry holding what one URL-mode record obtained (`["record","<id>"]`): the value
 * the page saved for that record, which only the request that asked reads, whatever other
 * records of the same principal and subject saved since.
 */
export function recordEntryName(recordId: string): string {
  return joinKey('record', recordId);
}

/** How long a record's own copy outlives the record's link: as long as the record is stored. */
export const RECORD_VALUE_GRACE_MS = 60 * 60_000;

/** The lifetime of the copy of a value saved for a record that expires at `expiresAt`. */
export function recordValueTtl(expiresAt: number, now = Date.now()): number {
  return Math.max(1, expiresAt - now + RECORD_VALUE_GRACE_MS);
}

/** The store key of an entry: both parts base64url, so no name can run into the other. */
function vaultStoreKey(e: VaultEntry): string {
  return `vault:${Buffer.from(e.principal).toString('base64url')}:${Buffer.from(e.provider).toString('base64url')}`;
}

const aad = (e: VaultEntry, kid: string) =>
  Buffer.from(JSON.stringify(['elicit-vault', e.principal, e.provider, kid]));

/** The row format: 2 since AAD and entry names are injective JSON arrays. */
const FORMAT = 2;

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
        v: FORMAT,
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
      const stored = await store.get<{ v?: number; k: string; iv: string; c: string }>(
        vaultStoreKey(entry),
      );
      // A row of the earlier format was sealed under other names: as if never saved.
      if (stored === undefined || stored.value.v !== FORMAT) return undefined;
      const { k, iv, c } = stored.value;
      const key = keys.usable(k, now());
      if (key === undefined) return undefined;
      const raw = Buffer.from(c, 'base64url');
      if (raw.length < 17) throw new VaultError(ELICIT_VAULT_CORRUPT, 'a vault entry is damaged.');
      const plain = aeadOpen(key.key, Buffer.from(iv, 'base64url'), aad(entry, k), raw);
      if (plain === undefined)
        throw new VaultError(
          ELICIT_VAULT_CORRUPT,
          'a vault entry failed authentication: it was altered or belongs to another user or provider.',
        );
      try {
        return JSON.parse(plain.toString('utf8')) as T;
      } catch {
        throw new VaultError(ELICIT_VAULT_CORRUPT, 'a vault entry is damaged.');
      }
    },
    async delete(entry) {
      await store.delete(vaultStoreKey(entry));
    },
  };
}
