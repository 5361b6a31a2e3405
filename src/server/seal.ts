/**
 * Sealed `requestState`: AES-256-GCM with a 16-byte tag, a key id and a keyring so keys rotate
 * with an overlap window. The payload is encrypted (the client learns nothing) and bound, as
 * additional authenticated data, to the request it belongs to: principal, method, name and a
 * digest of the arguments. Expiry and a round counter live inside the payload.
 *
 * Wire form: `e1.<kid>.<base64url(iv ‖ ciphertext ‖ tag)>`. Every failure is one StateError
 * whose `reason` is for logs only; callers answer the client with a generic -32602.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { ElicitError } from '../errors.ts';

const VERSION = 'e1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KID = /^[A-Za-z0-9_-]{1,32}$/;

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
  | 'unknown_key'
  | 'retired_key'
  | 'tampered_or_other_request'
  | 'expired'
  | 'payload';

/** The requestState could not be accepted. The wire answer never says why. */
export class StateError extends ElicitError {
  readonly reason: StateFailure;
  constructor(reason: StateFailure) {
    super('ELICIT_STATE_INVALID', `requestState rejected (${reason})`);
    this.reason = reason;
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
  /** Lifetime of a sealed state; default 10 minutes. */
  readonly ttlMs?: number;
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
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : Buffer.from(secret);
  if (bytes.length !== 32) {
    throw new ElicitError(
      'ELICIT_KEY_INVALID',
      `key "${id}" must be exactly 32 bytes (got ${bytes.length}); generate one with: node -e "console.log(crypto.randomBytes(32).toString('base64url'))"`,
    );
  }
  return bytes;
}

/** JSON with sorted object keys, so equal arguments always give the same digest. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

// A request opens its state and seals the next one with the same binding: digest it once.
const digests = new WeakMap<Binding, string>();
function aad(kid: string, b: Binding): Buffer {
  let digest = digests.get(b);
  if (digest === undefined) {
    digest = createHash('sha256')
      .update(canonical(b.args ?? null))
      .digest('base64url');
    digests.set(b, digest);
  }
  return Buffer.from(
    `${VERSION}\u0000${kid}\u0000${b.principal}\u0000${b.method}\u0000${b.name}\u0000${digest}`,
  );
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
  const { keyring } = options;
  if (keyring.keys.length === 0)
    throw new ElicitError('ELICIT_KEY_INVALID', 'the keyring needs at least one key');
  const keys = new Map<string, { key: KeyObject; retireAt: number }>();
  for (const k of keyring.keys) {
    if (!KID.test(k.id))
      throw new ElicitError(
        'ELICIT_KEY_INVALID',
        `key id ${JSON.stringify(k.id)} must be 1-32 letters, digits, "_" or "-"`,
      );
    if (keys.has(k.id))
      throw new ElicitError('ELICIT_KEY_INVALID', `key id "${k.id}" appears twice in the keyring`);
    keys.set(k.id, {
      // One KeyObject per key: raw bytes would be imported again on every call.
      key: createSecretKey(decodeSecret(k.secret, k.id)),
      retireAt: k.retireAt ?? Number.POSITIVE_INFINITY,
    });
  }
  const current = keyring.keys[0] as SealKey;
  const currentKey = (keys.get(current.id) as { key: KeyObject }).key;
  const ttlMs = options.ttlMs ?? 600_000;
  const maxLength = options.maxLength ?? 16_384;
  const now = options.now ?? Date.now;
  const prefix = `${VERSION}.${current.id}.`;

  return {
    seal(payload, binding, round) {
      const iv = freshIv();
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(current.id, binding));
      const body = JSON.stringify({ p: payload, r: round, x: now() + ttlMs });
      const out = Buffer.concat([
        iv,
        cipher.update(body, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      const state = prefix + out.toString('base64url');
      if (state.length > maxLength) {
        throw new ElicitError(
          'ELICIT_STATE_TOO_LARGE',
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
      if (first === -1 || second === -1 || state.slice(0, first) !== VERSION)
        throw new StateError('malformed');
      const kid = state.slice(first + 1, second);
      const entry = keys.get(kid);
      if (entry === undefined) throw new StateError('unknown_key');
      if (now() >= entry.retireAt) throw new StateError('retired_key');
      const text = state.slice(second + 1);
      // Strict base64url: Buffer.from would silently skip stray characters.
      if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new StateError('malformed');
      const raw = Buffer.from(text, 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES + 2 || raw.toString('base64url') !== text)
        throw new StateError('malformed');
      const decipher = createDecipheriv('aes-256-gcm', entry.key, raw.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(aad(kid, binding));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      let body: string;
      try {
        body = Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new StateError('tampered_or_other_request');
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
