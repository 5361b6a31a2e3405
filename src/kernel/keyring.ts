/**
 * One keyring and one AEAD for everything elicit encrypts (sealed requestState, the vault):
 * AES-256-GCM with a 12-byte IV and a 16-byte tag, enforced on both sides. A keyring is checked
 * once, when it is loaded: every secret exactly 32 bytes, ids unique and well formed, no secret
 * under two ids (a rotation that reuses a secret rotates nothing), and the first key (the one
 * that encrypts) not retired.
 */
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { ElicitError } from '../errors.ts';
import { ELICIT_KEYRING_INVALID } from './error-codes.ts';

export const IV_BYTES = 12;
export const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KID = /^[A-Za-z0-9_-]{1,32}$/;

export interface KeyringKey {
  /** Short identifier written beside everything it encrypts (letters, digits, `_`, `-`; at most 32). */
  readonly id: string;
  /** 32 bytes: a Uint8Array, or base64/base64url text of 32 bytes. */
  readonly secret: Uint8Array | string;
  /** Stop accepting data encrypted with this key after this time (ms since epoch). */
  readonly retireAt?: number;
}

export interface Keyring {
  /** Encrypts with the first key; decrypts with any key that is not retired. */
  readonly keys: readonly KeyringKey[];
}

/** A keyring that cannot be used as given: the message names the key and what to fix. */
export class KeyringError extends ElicitError {
  constructor(message: string) {
    super(ELICIT_KEYRING_INVALID, message);
  }
}

function decodeSecret(secret: Uint8Array | string, id: string): Buffer {
  if (typeof secret === 'string' && !/^[A-Za-z0-9+/_-]+={0,2}$/.test(secret))
    throw new KeyringError(
      `key "${id}" must be base64 or base64url text of 32 bytes; generate one with generateKeySecret()`,
    );
  if (typeof secret !== 'string' && !(secret instanceof Uint8Array))
    throw new KeyringError(
      `key "${id}" must have a secret of 32 bytes (a Uint8Array or base64 text); generate one with generateKeySecret()`,
    );
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : Buffer.from(secret);
  if (bytes.length !== KEY_BYTES) {
    throw new KeyringError(
      `key "${id}" must be exactly 32 bytes (got ${bytes.length}); generate one with: node -e "console.log(crypto.randomBytes(32).toString('base64url'))"`,
    );
  }
  return bytes;
}

/**
 * Checks a keyring and returns its keys decoded: at least one key; ids unique and well formed;
 * every secret exactly 32 bytes and different from the others; `retireAt` a time, and the
 * first key (the one that encrypts) not retired at `now`.
 */
export function checkKeyring(
  keyring: Keyring,
  now: number = Date.now(),
): Map<string, { secret: Buffer; retireAt: number }> {
  if (keyring === null || typeof keyring !== 'object' || !Array.isArray(keyring.keys))
    throw new KeyringError('the keyring must be { keys: [{ id, secret }, …] }');
  if (keyring.keys.length === 0) throw new KeyringError('the keyring needs at least one key');
  const out = new Map<string, { secret: Buffer; retireAt: number }>();
  const secrets = new Map<string, string>();
  for (const k of keyring.keys) {
    if (typeof k?.id !== 'string' || !KID.test(k.id))
      throw new KeyringError(
        `key id ${JSON.stringify(k?.id)} must be 1-32 letters, digits, "_" or "-"`,
      );
    if (out.has(k.id)) throw new KeyringError(`key id "${k.id}" appears twice in the keyring`);
    const secret = decodeSecret(k.secret, k.id);
    const hex = secret.toString('hex');
    const twin = secrets.get(hex);
    if (twin !== undefined)
      throw new KeyringError(
        `keys "${twin}" and "${k.id}" have the same secret; a new key needs a new secret (generateKeySecret())`,
      );
    secrets.set(hex, k.id);
    if (k.retireAt !== undefined && !Number.isFinite(k.retireAt))
      throw new KeyringError(
        `key "${k.id}": retireAt must be a time in milliseconds since the epoch, got ${String(k.retireAt)}`,
      );
    out.set(k.id, { secret, retireAt: k.retireAt ?? Number.POSITIVE_INFINITY });
  }
  const first = keyring.keys[0] as KeyringKey;
  if ((out.get(first.id)?.retireAt ?? Number.POSITIVE_INFINITY) <= now)
    throw new KeyringError(
      `key "${first.id}" encrypts new data but is already retired; put the new key first`,
    );
  return out;
}

/**
 * The keyring after a rotation: `next` encrypts from now on, every key of `current` still
 * decrypts for `overlapMs` (at least the longest lifetime of what it protects), then retires.
 */
export function rotateKeyring(current: Keyring, next: KeyringKey, overlapMs: number): Keyring {
  const retireAt = Date.now() + overlapMs;
  return {
    keys: [
      next,
      ...current.keys.map((k) => ({ ...k, retireAt: Math.min(k.retireAt ?? retireAt, retireAt) })),
    ],
  };
}

/** A fresh random key secret (base64url), for keyrings and documentation. */
export function generateKeySecret(): string {
  return randomBytes(KEY_BYTES).toString('base64url');
}

export interface LoadedKey {
  readonly id: string;
  /** One KeyObject per key: raw bytes would be imported again on every call. */
  readonly key: KeyObject;
  readonly retireAt: number;
}

/** A checked keyring, ready to use. */
export interface LoadedKeyring {
  /** The key that encrypts (the first). */
  readonly current: LoadedKey;
  /** The key `id`, when it exists and is not retired at `now`. */
  usable(id: string, now: number): LoadedKey | undefined;
  /** The key `id` whether retired or not (callers that name the failure). */
  find(id: string): LoadedKey | undefined;
}

export function loadKeyring(keyring: Keyring, now: number = Date.now()): LoadedKeyring {
  const keys = new Map<string, LoadedKey>();
  for (const [id, k] of checkKeyring(keyring, now))
    keys.set(id, { id, key: createSecretKey(k.secret), retireAt: k.retireAt });
  const current = keys.get((keyring.keys[0] as KeyringKey).id) as LoadedKey;
  return {
    current,
    find: (id) => keys.get(id),
    usable(id, at) {
      const k = keys.get(id);
      return k !== undefined && at < k.retireAt ? k : undefined;
    },
  };
}

/**
 * AES-256-GCM: `head ‖ ciphertext ‖ tag` of `plaintext` under `key` and a 12-byte `iv` (`head`,
 * bytes to write in front such as the salt and IV, saves the caller a second copy).
 */
export function aeadSeal(
  key: KeyObject,
  iv: Uint8Array,
  aad: Uint8Array,
  plaintext: string | Uint8Array,
  head: readonly Uint8Array[] = [],
): Buffer {
  if (iv.length !== IV_BYTES) throw new RangeError(`the IV must be ${IV_BYTES} bytes`);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body =
    typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext);
  // GCM's final() yields no bytes; it completes the tag. One copy: `head ‖ ciphertext ‖ tag`.
  cipher.final();
  return Buffer.concat([...head, body, cipher.getAuthTag()]);
}

/**
 * Opens `ciphertext ‖ tag` (a 16-byte tag, never shorter); undefined when it does not
 * authenticate under `key`, `iv` and `aad`, so a wrong key, tampering and a copy to another
 * context look the same.
 */
export function aeadOpen(
  key: KeyObject,
  iv: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array,
): Buffer | undefined {
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    const plain = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
    // GCM's final() yields no bytes; it is where the tag is checked (and throws).
    decipher.final();
    return plain;
  } catch {
    return undefined;
  }
}
