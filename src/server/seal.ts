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
 * A sealer remembers, within a budget of characters, the states it sealed: one that comes back
 * to it unchanged opens without decrypting (see `rememberChars`).
 *
 * Wire form: `e2.<kid>.<base64url(salt ‖ iv ‖ ciphertext ‖ tag)>`. States of the earlier `e1`
 * form are refused (`old_format`): their conversation starts over. Every failure is one
 * StateError whose `reason` is for logs only; callers answer the client with a generic -32602.
 */
import { createSecretKey, hash, hkdfSync, type KeyObject } from 'node:crypto';
import { ElicitError } from '../errors.ts';
import {
  ELICIT_LIMIT_INVALID,
  ELICIT_STATE_INVALID,
  ELICIT_STATE_TOO_LARGE,
} from '../kernel/error-codes.ts';
import {
  aeadOpen,
  aeadSeal,
  checkKeyring,
  generateKeySecret,
  IV_BYTES,
  type Keyring,
  KeyringError,
  type KeyringKey,
  loadKeyring,
  rotateKeyring,
  TAG_BYTES,
} from '../kernel/keyring.ts';
import { pooledRandom, randomBytes } from '../kernel/random.ts';

export { checkKeyring, generateKeySecret, type Keyring, KeyringError, rotateKeyring };

const VERSION = 'e2';
const SALT_BYTES = 16;
/** Seals under one derived key before the salt is redrawn. */
export const SEALS_PER_SALT = 2 ** 20;
const HKDF_INFO = Buffer.from('elicit requestState e2');

/** A key of the keyring (the same keyring shape the vault takes). */
export type SealKey = KeyringKey;

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
  /**
   * Characters of recently sealed states (state, body and binding) kept so that a state coming
   * back to the process that sealed it opens without decrypting; default 1 MiB, 0 keeps none.
   */
  readonly rememberChars?: number;
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
  /** Characters of sealed states held to open without decrypting (measurement and tests). */
  readonly rememberedChars: number;
}

/** JSON with sorted object keys, so equal arguments always give the same digest. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * A request's binding, made once per request: it opens the request's state and seals the next
 * one, so what both need (the arguments in canonical form, their digest, the additional data)
 * is built on first use and kept. A plain Binding is prepared afresh for each seal and open.
 */
export class RequestBinding implements Binding {
  readonly principal: string;
  readonly method: string;
  readonly name: string;
  readonly args: unknown;
  #canonical: string | undefined;
  #identity: string | undefined;
  #digest: string | undefined;
  #kid = '';
  #audience = '';
  #aad: Buffer | undefined;
  constructor(principal: string, method: string, name: string, args: unknown) {
    this.principal = principal;
    this.method = method;
    this.name = name;
    this.args = args;
  }
  /** @internal The arguments with their keys sorted, so equal arguments always match. */
  canonicalArgs(): string {
    this.#canonical ??= canonical(this.args ?? null);
    return this.#canonical;
  }
  /** @internal Everything the binding holds, compared as one string (no hash needed). */
  identity(): string {
    this.#identity ??= JSON.stringify([
      this.principal,
      this.method,
      this.name,
      this.canonicalArgs(),
    ]);
    return this.#identity;
  }
  /** @internal The AEAD's additional data under key `kid` and `audience`. */
  aad(kid: string, audience: string): Buffer {
    if (this.#aad !== undefined && this.#kid === kid && this.#audience === audience)
      return this.#aad;
    // One-shot hash: no Hash object per request.
    this.#digest ??= hash('sha256', this.canonicalArgs(), 'base64url');
    this.#kid = kid;
    this.#audience = audience;
    // A JSON array: no field can run into the next whatever characters it holds.
    this.#aad = Buffer.from(
      JSON.stringify([
        VERSION,
        kid,
        audience,
        this.principal,
        this.method,
        this.name,
        this.#digest,
      ]),
    );
    return this.#aad;
  }
}

const prepared = (b: Binding): RequestBinding =>
  b instanceof RequestBinding ? b : new RequestBinding(b.principal, b.method, b.name, b.args);

const B64URL = /^[A-Za-z0-9_-]+$/;
const B64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/**
 * True when `text` is the one unpadded base64url spelling of its bytes, so a state has exactly
 * one written form: only the alphabet (Buffer.from would skip stray characters), no length that
 * leaves a lone character, and no bits set past the last byte. Same answer as decoding and
 * re-encoding, without the second pass.
 */
export function canonicalBase64url(text: string): boolean {
  if (!B64URL.test(text)) return false;
  const rest = text.length % 4;
  if (rest === 1) return false;
  if (rest === 0) return true;
  const last = B64URL_ALPHABET.indexOf(text.charAt(text.length - 1));
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

function deriveKey(master: KeyObject, salt: Uint8Array): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', master, salt, HKDF_INFO, 32)));
}

export function createSealer(options: SealerOptions): Sealer {
  const now = options.now ?? Date.now;
  const keys = loadKeyring(options.keyring, now());
  const current = keys.current;
  const currentKey = current.key;
  const audience = options.audience ?? '';
  const ttlMs = options.ttlMs ?? 600_000;
  const maxLength = options.maxLength ?? 16_384;
  const prefix = `${VERSION}.${current.id}.`;

  let salt = Buffer.from(randomBytes(SALT_BYTES));
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
  // States this process sealed, by their exact text, oldest first. Inside a request every
  // cipher call runs cold (a seal and an open cost several times what they cost in a loop), and
  // most states come back to the process that sealed them: for those, the state's text, its key
  // id's retirement, its binding and its expiry are checked as always, without the decryption.
  // A state that differs by one character, or that another replica sealed, is decrypted.
  const rememberChars = options.rememberChars ?? 1_048_576;
  if (!Number.isSafeInteger(rememberChars) || rememberChars < 0)
    throw new ElicitError(
      ELICIT_LIMIT_INVALID,
      `rememberChars must be a whole number of characters (0 keeps none), got ${rememberChars}`,
    );
  const remembered = new Map<string, Remembered>();
  let rememberedChars = 0;
  const forget = (state: string, r: Remembered) => {
    remembered.delete(state);
    rememberedChars -= r.chars;
  };

  return {
    get rememberedChars() {
      return rememberedChars;
    },
    seal(payload, given, round) {
      const binding = prepared(given);
      if (sealsLeft === 0) {
        salt = Buffer.from(randomBytes(SALT_BYTES));
        sealKey = deriveKey(currentKey, salt);
        sealsLeft = perSalt;
      }
      sealsLeft -= 1;
      // IVs come from the pooled CSPRNG: one call per many seals instead of one each.
      const iv = pooledRandom(IV_BYTES);
      const body = JSON.stringify({ p: payload, r: round, x: now() + ttlMs });
      const out = aeadSeal(sealKey, iv, binding.aad(current.id, audience), body, [salt, iv]);
      const state = prefix + out.toString('base64url');
      if (state.length > maxLength) {
        throw new ElicitError(
          ELICIT_STATE_TOO_LARGE,
          `sealed requestState is ${state.length} characters, over the ${maxLength} limit; keep journaled step results small`,
        );
      }
      // With no memory (rememberChars 0) nothing is kept, and the binding's identity is not made.
      const identity = rememberChars === 0 ? '' : binding.identity();
      const chars = state.length + body.length + identity.length;
      if (rememberChars > 0 && chars <= rememberChars) {
        if (rememberedChars + chars > rememberChars)
          for (const [old, r] of remembered) {
            forget(old, r);
            if (rememberedChars + chars <= rememberChars) break;
          }
        remembered.set(state, { identity, body, chars });
        rememberedChars += chars;
      }
      return state;
    },
    open<T>(state: unknown, given: Binding): Opened<T> {
      const binding = prepared(given);
      if (typeof state !== 'string') throw new StateError('not_string');
      if (state.length > maxLength) throw new StateError('oversize');
      const first = state.indexOf('.');
      const second = state.indexOf('.', first + 1);
      if (first === -1 || second === -1) throw new StateError('malformed');
      const version = state.slice(0, first);
      if (version === 'e1') throw new StateError('old_format');
      if (version !== VERSION) throw new StateError('malformed');
      const kid = state.slice(first + 1, second);
      const entry = keys.find(kid);
      if (entry === undefined) throw new StateError('unknown_key');
      if (now() >= entry.retireAt) throw new StateError('retired_key');
      const known = remembered.get(state);
      if (known !== undefined) {
        if (known.identity !== binding.identity())
          throw new StateError('tampered_or_other_request');
        // Opened once: a state presented again is decrypted like any other.
        forget(state, known);
        return opening<T>(known.body, now());
      }
      const text = state.slice(second + 1);
      if (!canonicalBase64url(text)) throw new StateError('malformed');
      const raw = Buffer.from(text, 'base64url');
      const head = SALT_BYTES + IV_BYTES;
      if (raw.length < head + TAG_BYTES + 2) throw new StateError('malformed');
      const stateSalt = raw.subarray(0, SALT_BYTES);
      // Most states were sealed under this replica's current salt: no cache key to build.
      const ours = kid === current.id && stateSalt.equals(salt);
      const cacheKey = ours ? '' : `${kid}.${stateSalt.toString('base64url')}`;
      const cached = ours ? sealKey : opened.get(cacheKey);
      const key = cached ?? deriveKey(entry.key, stateSalt);
      const plain = aeadOpen(
        key,
        raw.subarray(SALT_BYTES, head),
        binding.aad(kid, audience),
        raw.subarray(head),
      );
      if (plain === undefined) throw new StateError('tampered_or_other_request');
      const body = plain.toString('utf8');
      // Only keys that opened a genuine state are kept, so forged salts cannot fill the cache.
      if (cached === undefined) {
        if (opened.size >= MAX_DERIVED) opened.delete(opened.keys().next().value as string);
        opened.set(cacheKey, key);
      }
      return opening<T>(body, now());
    },
  };
}

interface Remembered {
  /** The binding it was sealed for; key id and audience are the state's own and this sealer's. */
  readonly identity: string;
  readonly body: string;
  readonly chars: number;
}

/** A state's decrypted body, parsed afresh each time (callers may change what they get). */
function opening<T>(body: string, at: number): Opened<T> {
  let parsed: { p?: unknown; r?: unknown; x?: unknown };
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new StateError('payload');
  }
  if (typeof parsed.x !== 'number' || typeof parsed.r !== 'number') throw new StateError('payload');
  if (at >= parsed.x) throw new StateError('expired');
  return { payload: parsed.p as T, round: parsed.r, expiresAt: parsed.x };
}
