/**
 * In-memory store: one process, nothing survives a restart. For tests and single-process dev.
 * Values are kept by reference and deep-frozen on write (no copy on read): a value passed in is
 * frozen, and what `get` returns must not be modified (it cannot be).
 */
import { ELICIT_STORE_FULL } from '../kernel/error-codes.ts';
import {
  checkCap,
  checkKey,
  checkPage,
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

/**
 * When tagged records expire, soonest first (a binary heap), so a tag's live count is exact
 * without reading its records: each record is removed from its tags once, when its time comes.
 * A node whose record was removed, recreated or given a later expiry is skipped when reached.
 */
class ExpiryHeap {
  private at: number[] = [];
  private keys: string[] = [];
  get size(): number {
    return this.at.length;
  }
  push(at: number, key: string): void {
    const { at: a, keys: k } = this;
    let i = a.length;
    a.push(at);
    k.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((a[parent] as number) <= at) break;
      a[i] = a[parent] as number;
      k[i] = k[parent] as string;
      i = parent;
    }
    a[i] = at;
    k[i] = key;
  }
  /** The key of the soonest node if it is due at `now`, removed from the heap. */
  popDue(now: number): string | undefined {
    const { at: a, keys: k } = this;
    if (a.length === 0 || (a[0] as number) > now) return undefined;
    const top = k[0] as string;
    const lastAt = a.pop() as number;
    const lastKey = k.pop() as string;
    const n = a.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && (a[child + 1] as number) < (a[child] as number)) child += 1;
        if ((a[child] as number) >= lastAt) break;
        a[i] = a[child] as number;
        k[i] = k[child] as string;
        i = child;
      }
      a[i] = lastAt;
      k[i] = lastKey;
    }
    return top;
  }
  /** Keeps only the nodes `keep` accepts; a sorted array is a heap. */
  compact(keep: (at: number, key: string) => boolean): void {
    const nodes: [number, string][] = [];
    for (let i = 0; i < this.at.length; i++)
      if (keep(this.at[i] as number, this.keys[i] as string))
        nodes.push([this.at[i] as number, this.keys[i] as string]);
    nodes.sort((x, y) => x[0] - y[0]);
    this.at = nodes.map((n) => n[0]);
    this.keys = nodes.map((n) => n[1]);
  }
  clear(): void {
    this.at = [];
    this.keys = [];
  }
}

export function memoryStore(options: { now?: () => number; maxEntries?: number } = {}): Store {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1_000_000;
  const entries = new Map<string, Entry>();
  const tags = new Map<string, Set<string>>();
  const heap = new ExpiryHeap();
  let tagged = 0;
  const remove = (key: string, e: Entry) => {
    entries.delete(key);
    if (e.tags.length === 0) return;
    tagged -= 1;
    for (const t of e.tags) {
      const set = tags.get(t);
      set?.delete(key);
      if (set?.size === 0) tags.delete(t);
    }
  };
  /** Removes tagged records whose time has come; amortized constant per record. */
  const expireTagged = (t: number) => {
    for (let key = heap.popDue(t); key !== undefined; key = heap.popDue(t)) {
      const e = entries.get(key);
      if (e !== undefined && e.expiresAt <= t) remove(key, e);
    }
  };
  /**
   * Adds a tagged record's expiry. Nodes left by deleted, taken or re-timed records are dropped
   * once they outnumber the live ones twice over: the heap stays within about three times the
   * tagged records, for amortized constant work per push.
   */
  const schedule = (at: number, key: string) => {
    heap.push(at, key);
    if (heap.size > 1024 && heap.size > 3 * tagged)
      heap.compact((when, k) => {
        const e = entries.get(k);
        return e !== undefined && e.expiresAt === when && e.tags.length > 0;
      });
  };
  const live = (key: string): Entry | undefined => {
    const e = entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= now()) {
      remove(key, e);
      return undefined;
    }
    return e;
  };
  const out = <T extends Json>(e: Entry): Stored<T> => ({
    value: e.value as T,
    version: e.version,
    expiresAt: e.expiresAt,
  });
  const insert = (key: string, value: Json, opts: PutOptions, t: number) => {
    if (entries.size >= maxEntries) {
      for (const [k, e] of entries) if (e.expiresAt <= t) remove(k, e);
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
      expiresAt: t + opts.ttlMs,
      tags:
        opts.tags === undefined || opts.tags.length === 0
          ? []
          : opts.tags.length === 1
            ? opts.tags
            : [...new Set(opts.tags)],
    };
    entries.set(key, e);
    if (e.tags.length === 0) return;
    tagged += 1;
    schedule(e.expiresAt, key);
    for (const tag of e.tags) {
      let set = tags.get(tag);
      if (set === undefined) tags.set(tag, (set = new Set()));
      set.add(key);
    }
  };
  return {
    scope: 'process',
    async create(key, value, opts: PutOptions) {
      checkKey(key);
      checkTtl(opts.ttlMs);
      for (const tag of opts.tags ?? []) checkKey(tag, 'tag');
      if (live(key) !== undefined) return false;
      insert(key, value, opts, now());
      return true;
    },
    async createCapped(key, value, opts, cap) {
      checkKey(key);
      checkTtl(opts.ttlMs);
      checkCap(cap);
      for (const tag of opts.tags ?? []) checkKey(tag, 'tag');
      if (live(key) !== undefined) return 'exists';
      const t = now();
      expireTagged(t);
      if ((tags.get(cap.tag)?.size ?? 0) >= cap.max) return 'full';
      const own = opts.tags ?? [];
      insert(key, value, { ...opts, tags: own.includes(cap.tag) ? own : [...own, cap.tag] }, t);
      return 'created';
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
      if (opts?.ttlMs !== undefined) {
        e.expiresAt = now() + opts.ttlMs;
        if (e.tags.length > 0) schedule(e.expiresAt, key);
      }
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
    async findByTag(tag, page) {
      checkPage(page);
      expireTagged(now());
      const keys = [...(tags.get(tag) ?? [])];
      if (page === undefined) return keys;
      const after = page.after;
      return (after === undefined ? keys : keys.filter((k) => k > after))
        .sort()
        .slice(0, page.limit);
    },
    async countByTag(tag) {
      expireTagged(now());
      return tags.get(tag)?.size ?? 0;
    },
    async close() {
      entries.clear();
      tags.clear();
      heap.clear();
      tagged = 0;
    },
  };
}
