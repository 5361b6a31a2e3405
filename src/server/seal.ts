/**
 * Sealed `requestState`: AES-256-GCM with a 16-byte tag under a key derived per salt, a key id
 * and a keyring so keys rotate with an overlap window. The payload is encrypted (the client
 * learns nothing) and bound, as additional authenticated data, to the server's audience and the
 * request it belongs to: principal, method, name and a digest of the arguments. Expiry and a
 * round counter live inside the payload.
 *
 * Each seal uses HKDF-SHA256(keyring key, salt) as its AES key; the salt is random and redrawn
 * every 2^20 seals, so no AES key ever sees more than 2^20 random 96-bit IVs (collision odds
 * about 2^-57) however long a keyring key lives.
 *
 * Wire form: `e2.<kid>.<base64url(salt ‖ iv ‖ ciphertext ‖ tag)>`. States of the earlier `e1`
 * form are refused (`old_format`): their conversation starts over. Every failure is one
 * StateError whose `reason` is for logs only; callers answer the client with a generic -32602.
 */

import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_KEYRING_INVALID,
  ELICIT_LIMIT_INVALID,
  ELICIT_STATE_INVALID,
  ELICIT_STATE_TOO_LARGE,
} from '../kernel/error-codes.ts';

const VERSION = 'e2';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Seals under one derived key before the salt is redrawn. */
export const SEALS_PER_SALT = 2 ** 20;
const KID = /^[A-Za-z0-9_-]{1,32}$/;
const HKDF_INFO = Buffer.from('elicit requestState e2');

export interface SealKey {
  /** Short identifier written into every state (letters, digits, `_`, `-`; at most 32). */
  readonly id: string;
  /** 32 bytes: a Uint8Array, or base64/base64url text of 32 bytes. */
  readonly secret: Uint8Array | string;
  /** Stop accepting states sealed with this key after this time (ms since epoch). */
  readonly retireAt?: number;
}

export interface Keyring {
  /** Seals with the first key; opens with any key that is not retired. */
  readonly keys: readonly SealKey[];
}

export type StateFailure =
  | 'not_string'
  | 'oversize'
  | 'malformed'
  | 'old_format'
  | 'unknown_key'
  | 'retired_key'
  | 'tampered_or_other_request'
  | 'expired'
  | 'payload';

/** The requestState could not be accepted. The wire answer never says why. */
export class StateError extends ElicitError {
  readonly reason: StateFailure;
  constructor(reason: StateFailure) {
    super(ELICIT_STATE_INVALID, `requestState rejected (${reason})`);
    this.reason = reason;
  }
}

/** A keyring that cannot be used as given: the message names the key and what to fix. */
export class KeyringError extends ElicitError {
  constructor(message: string) {
    super(ELICIT_KEYRING_INVALID, message);
  }
}

/** What a state is bound to; a state opens only for the same binding. */
export interface Binding {
  readonly principal: string;
  readonly method: string;
  readonly name: string;
  /** The request's arguments; only a digest is used. */
  readonly args?: unknown;
}

export interface SealerOptions {
  readonly keyring: Keyring;
  /**
   * Who this server is (its resource URL or name), bound into every state: two services that
   * share a key cannot accept each other's states. Default `''`; createServer passes its own.
   */
  readonly audience?: string;
  /** Lifetime of a sealed state; default 10 minutes. */
  readonly ttlMs?: number;
  /** Seals under one derived key before a new salt is drawn; default 2^20. */
  readonly sealsPerSalt?: number;
  /** Largest sealed state accepted or produced, in characters; default 16 KiB. */
  readonly maxLength?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
}

export interface Opened<T> {
  readonly payload: T;
  readonly round: number;
  readonly expiresAt: number;
}

export interface Sealer {
  seal(payload: unknown, binding: Binding, round: number): string;
  open<T = unknown>(state: unknown, binding: Binding): Opened<T>;
}

function decodeSecret(secret: Uint8Array | string, id: string): Buffer {
  if (typeof secret === 'string' && !/^[A-Za-z0-9+/_-]+={0,2}$/.test(secret))
    throw new KeyringError(
      `key "${id}" must be base64 or base64url text of 32 bytes; generate one with generateKeySecret()`,
    );
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : Buffer.from(secret);
  if (bytes.length !== 32) {
    throw new KeyringError(
      `key "${id}" must be exactly 32 bytes (got ${bytes.length}); generate one with: node -e "console.log(crypto.randomBytes(32).toString('base64url'))"`,
    );
  }
  return bytes;
}

/**
 * Checks a keyring and returns its keys decoded: at least one key; ids unique and well formed;
 * every secret exactly 32 bytes and different from the others (a rotation that reuses a secret
 * rotates nothing); `retireAt` a time, and the first key (the one that seals) not retired.
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
  const first = keyring.keys[0] as SealKey;
  if ((out.get(first.id)?.retireAt ?? Number.POSITIVE_INFINITY) <= now)
    throw new KeyringError(
      `key "${first.id}" seals new states but is already retired; put the new key first`,
    );
  return out;
}

/**
 * The keyring after a rotation: `next` seals from now on, every key of `current` still opens
 * for `overlapMs` (at least the state TTL, so states in flight finish), then retires.
 */
export function rotateKeyring(current: Keyring, next: SealKey, overlapMs: number): Keyring {
  const retireAt = Date.now() + overlapMs;
  return {
    keys: [
      next,
      ...current.keys.map((k) => ({ ...k, retireAt: Math.min(k.retireAt ?? retireAt, retireAt) })),
    ],
  };
}

/** JSON with sorted object keys, so equal arguments always give the same digest. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

// A request opens its state and seals the next one with the same binding: build its additional
// data once (the arguments digest is kept even when the key id differs).
interface Prepared extends Binding {
  readonly digest: string;
  readonly kid: string;
  readonly audience: string;
  readonly aad: Buffer;
}
const digests = new WeakMap<Binding, Prepared>();
function aad(kid: string, audience: string, b: Binding): Buffer {
  const known = digests.get(b);
  if (
    known !== undefined &&
    known.kid === kid &&
    known.audience === audience &&
    known.principal === b.principal &&
    known.method === b.method &&
    known.name === b.name
  )
    return known.aad;
  const digest =
    known?.digest ??
    createHash('sha256')
      .update(canonical(b.args ?? null))
      .digest('base64url');
  // A JSON array: no field can run into the next whatever characters it holds.
  const data = Buffer.from(
    JSON.stringify([VERSION, kid, audience, b.principal, b.method, b.name, digest]),
  );
  digests.set(b, { ...b, digest, kid, audience, aad: data });
  return data;
}

function deriveKey(master: KeyObject, salt: Uint8Array): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', master, salt, HKDF_INFO, 32)));
}

// IVs come from a pooled random buffer: one CSPRNG call per 340 seals instead of one each.
let pool = Buffer.alloc(0);
let poolAt = 0;
function freshIv(): Buffer {
  if (poolAt + IV_BYTES > pool.length) {
    pool = randomBytes(IV_BYTES * 340);
    poolAt = 0;
  }
  const iv = pool.subarray(poolAt, poolAt + IV_BYTES);
  poolAt += IV_BYTES;
  return iv;
}

export function createSealer(options: SealerOptions): Sealer {
  const now = options.now ?? Date.now;
  const keys = new Map<string, { key: KeyObject; retireAt: number }>();
  for (const [id, k] of checkKeyring(options.keyring, now())) {
    // One KeyObject per key: raw bytes would be imported again on every call.
    keys.set(id, { key: createSecretKey(k.secret), retireAt: k.retireAt });
  }
  const current = options.keyring.keys[0] as SealKey;
  const currentKey = (keys.get(current.id) as { key: KeyObject }).key;
  const audience = options.audience ?? '';
  const ttlMs = options.ttlMs ?? 600_000;
  const maxLength = options.maxLength ?? 16_384;
  const prefix = `${VERSION}.${current.id}.`;

  let salt = randomBytes(SALT_BYTES);
  let sealKey = deriveKey(currentKey, salt);
  const perSalt = options.sealsPerSalt ?? SEALS_PER_SALT;
  if (!Number.isSafeInteger(perSalt) || perSalt < 1 || perSalt > SEALS_PER_SALT)
    throw new ElicitError(
      ELICIT_LIMIT_INVALID,
      `sealsPerSalt must be a whole number from 1 to 2^20, got ${perSalt}`,
    );
  let sealsLeft = perSalt;
  // Derived keys of states that opened (other replicas' salts, our earlier ones), bounded.
  const opened = new Map<string, KeyObject>();
  const MAX_DERIVED = 256;

  return {
    seal(payload, binding, round) {
      if (sealsLeft === 0) {
        salt = randomBytes(SALT_BYTES);
        sealKey = deriveKey(currentKey, salt);
        sealsLeft = perSalt;
      }
      sealsLeft -= 1;
      const iv = freshIv();
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(current.id, audience, binding));
      const body = JSON.stringify({ p: payload, r: round, x: now() + ttlMs });
      const out = Buffer.concat([
        salt,
        iv,
        cipher.update(body, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      const state = prefix + out.toString('base64url');
      if (state.length > maxLength) {
        throw new ElicitError(
          ELICIT_STATE_TOO_LARGE,
          `sealed requestState is ${state.length} characters, over the ${maxLength} limit; keep journaled step results small`,
        );
      }
      return state;
    },
    open<T>(state: unknown, binding: Binding): Opened<T> {
      if (typeof state !== 'string') throw new StateError('not_string');
      if (state.length > maxLength) throw new StateError('oversize');
      const first = state.indexOf('.');
      const second = state.indexOf('.', first + 1);
      if (first === -1 || second === -1) throw new StateError('malformed');
      const version = state.slice(0, first);
      if (version === 'e1') throw new StateError('old_format');
      if (version !== VERSION) throw new StateError('malformed');
      const kid = state.slice(first + 1, second);
      const entry = keys.get(kid);
      if (entry === undefined) throw new StateError('unknown_key');
      if (now() >= entry.retireAt) throw new StateError('retired_key');
      const text = state.slice(second + 1);
      // Strict base64url: Buffer.from would silently skip stray characters.
      if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new StateError('malformed');
      const raw = Buffer.from(text, 'base64url');
      const head = SALT_BYTES + IV_BYTES;
      if (raw.length < head + TAG_BYTES + 2 || raw.toString('base64url') !== text)
        throw new StateError('malformed');
      const stateSalt = raw.subarray(0, SALT_BYTES);
      const cacheKey = `${kid}.${stateSalt.toString('base64url')}`;
      const cached = kid === current.id && stateSalt.equals(salt) ? sealKey : opened.get(cacheKey);
      const key = cached ?? deriveKey(entry.key, stateSalt);
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(SALT_BYTES, head), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(aad(kid, audience, binding));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      let body: string;
      try {
        body = Buffer.concat([
          decipher.update(raw.subarray(head, raw.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new StateError('tampered_or_other_request');
      }
      // Only keys that opened a genuine state are kept, so forged salts cannot fill the cache.
      if (cached === undefined) {
        if (opened.size >= MAX_DERIVED) opened.delete(opened.keys().next().value as string);
        opened.set(cacheKey, key);
      }
      let parsed: { p?: unknown; r?: unknown; x?: unknown };
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new StateError('payload');
      }
      if (typeof parsed.x !== 'number' || typeof parsed.r !== 'number')
        throw new StateError('payload');
      if (now() >= parsed.x) throw new StateError('expired');
      return { payload: parsed.p as T, round: parsed.r, expiresAt: parsed.x };
    },
  };
}

/** A fresh random key secret (base64url), for keyrings and documentation. */
export function generateKeySecret(): string {
  return randomBytes(32).toString('base64url');
}
