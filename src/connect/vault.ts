/**
 * The vault: third-party tokens and secrets, encrypted at rest with AES-256-GCM (16-byte tag)
 * under a keyring, with additional authenticated data = principal + provider + key id, so a
 * row copied to another user or provider fails to decrypt. Values never leave the server.
 */

import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { ElicitError } from '../errors.ts';
import { ELICIT_KEY_INVALID, ELICIT_VAULT_CORRUPT } from '../kernel/error-codes.ts';
import type { Keyring } from '../server/seal.ts';
import type { Json, Store } from '../store/types.ts';

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

function keyOf(secret: Uint8Array | string, id: string): KeyObject {
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : Buffer.from(secret);
  if (bytes.length !== 32)
    throw new VaultError(
      ELICIT_KEY_INVALID,
      `vault key "${id}" must be exactly 32 bytes (got ${bytes.length}).`,
    );
  return createSecretKey(bytes);
}

const aad = (e: VaultEntry, kid: string) =>
  Buffer.from(`elicit-vault\u0000${e.principal}\u0000${e.provider}\u0000${kid}`);
const storeKey = (e: VaultEntry) =>
  `vault:${Buffer.from(e.principal).toString('base64url')}:${Buffer.from(e.provider).toString('base64url')}`;

export function createVault(
  store: Store,
  keyring: Keyring,
  options: { now?: () => number } = {},
): Vault {
  if (keyring.keys.length === 0)
    throw new VaultError(ELICIT_KEY_INVALID, 'the vault keyring needs at least one key');
  const keys = new Map(
    keyring.keys.map((k) => [
      k.id,
      { key: keyOf(k.secret, k.id), retireAt: k.retireAt ?? Number.POSITIVE_INFINITY },
    ]),
  );
  const current = keyring.keys[0] as { id: string };
  const now = options.now ?? Date.now;
  return {
    async put(entry, secret, ttlMs) {
      const iv = randomBytes(12);
      const cipher = createCipheriv(
        'aes-256-gcm',
        (keys.get(current.id) as { key: KeyObject }).key,
        iv,
        { authTagLength: 16 },
      );
      cipher.setAAD(aad(entry, current.id));
      const body = Buffer.concat([
        cipher.update(JSON.stringify(secret), 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      const record = { k: current.id, iv: iv.toString('base64url'), c: body.toString('base64url') };
      const key = storeKey(entry);
      // Replace: delete then create (tokens are rewritten on refresh).
      await store.delete(key);
      await store.create(key, record, { ttlMs, tags: [`vault-principal:${entry.principal}`] });
    },
    async get<T extends Json>(entry: VaultEntry): Promise<T | undefined> {
      const stored = await store.get<{ k: string; iv: string; c: string }>(storeKey(entry));
      if (stored === undefined) return undefined;
      const { k, iv, c } = stored.value;
      const key = keys.get(k);
      if (key === undefined || now() >= key.retireAt) return undefined;
      const raw = Buffer.from(c, 'base64url');
      if (raw.length < 17) throw new VaultError(ELICIT_VAULT_CORRUPT, 'a vault entry is damaged.');
      const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'), {
        authTagLength: 16,
      });
      decipher.setAAD(aad(entry, k));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      try {
        return JSON.parse(
          Buffer.concat([
            decipher.update(raw.subarray(0, raw.length - 16)),
            decipher.final(),
          ]).toString('utf8'),
        ) as T;
      } catch {
        throw new VaultError(
          ELICIT_VAULT_CORRUPT,
          'a vault entry failed authentication: it was altered or belongs to another user or provider.',
        );
      }
    },
    async delete(entry) {
      await store.delete(storeKey(entry));
    },
  };
}
