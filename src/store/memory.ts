/**
 * In-memory store: one process, nothing survives a restart. For tests and single-process dev.
 * Values are kept by reference and deep-frozen on write (no copy on read): a value passed in is
 * frozen, and what `get` returns must not be modified (it cannot be).
 */
import { ELICIT_STORE_FULL } from '../kernel/error-codes.ts';
import {
  checkKey,
  checkTtl,
  type Json,
  type PutOptions,
  type Store,
  type Stored,
  StoreError,
} from './types.ts';

function deepFreeze<T>(value: T): T {
  // Only objects are queued: a record's strings and numbers need no freezing of their own.
  let stack: object[] | undefined;
  let v: unknown = value;
  for (;;) {
    if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (const k of Object.keys(v)) {
        const child = (v as Record<string, unknown>)[k];
        if (child !== null && typeof child === 'object') (stack ??= []).push(child);
      }
    }
    if (stack === undefined || stack.length === 0) return value;
    v = stack.pop();
  }
}

interface Entry {
  value: Json;
  version: number;
  expiresAt: number;
  tags: readonly string[];
}

export function memoryStore(options: { now?: () => number; maxEntries?: number } = {}): Store {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1_000_000;
  const entries = new Map<string, Entry>();
  const tags = new Map<string, Set<string>>();
  const live = (key: string): Entry | undefined => {
    const e = entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= now()) {
      remove(key, e);
      return undefined;
    }
    return e;
  };
  const remove = (key: string, e: Entry) => {
    entries.delete(key);
    for (const t of e.tags) tags.get(t)?.delete(key);
  };
  const out = <T extends Json>(e: Entry): Stored<T> => ({
    value: e.value as T,
    version: e.version,
    expiresAt: e.expiresAt,
  });
  return {
    scope: 'process',
    async create(key, value, opts: PutOptions) {
      checkKey(key);
      checkTtl(opts.ttlMs);
      if (live(key) !== undefined) return false;
      if (entries.size >= maxEntries) {
        for (const [k, e] of entries) if (e.expiresAt <= now()) remove(k, e);
        if (entries.size >= maxEntries)
          throw new StoreError(
            ELICIT_STORE_FULL,
            `memory store is full (${maxEntries} live entries, its maxEntries); nothing was written`,
            maxEntries,
          );
      }
      const e: Entry = {
        value: deepFreeze(value),
        version: 1,
        expiresAt: now() + opts.ttlMs,
        tags: opts.tags ?? [],
      };
      entries.set(key, e);
      for (const t of e.tags) {
        let set = tags.get(t);
        if (set === undefined) tags.set(t, (set = new Set()));
        set.add(key);
      }
      return true;
    },
    async get(key) {
      const e = live(key);
      return e === undefined ? undefined : out(e);
    },
    async update(key, version, value, opts) {
      const e = live(key);
      if (e === undefined || e.version !== version) return false;
      if (opts?.ttlMs !== undefined) checkTtl(opts.ttlMs);
      e.value = deepFreeze(value);
      e.version += 1;
      if (opts?.ttlMs !== undefined) e.expiresAt = now() + opts.ttlMs;
      return true;
    },
    async take(key) {
      const e = live(key);
      if (e === undefined) return undefined;
      remove(key, e);
      return out(e);
    },
    async delete(key) {
      const e = entries.get(key);
      if (e !== undefined) remove(key, e);
    },
    async findByTag(tag) {
      return [...(tags.get(tag) ?? [])].filter((k) => live(k) !== undefined);
    },
    async close() {
      entries.clear();
      tags.clear();
    },
  };
}
