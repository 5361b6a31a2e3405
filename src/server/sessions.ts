/**
 * The legacy session table of one HTTP entry, bounded so that no caller can push another out.
 *
 * - Each principal has a quota. A principal at its quota makes room among its own sessions
 *   only: first one that never served a request after initialize, then its longest idle one;
 *   when all of them are busy (a call or a stream open) the new session is refused.
 * - The table has a global cap. At the cap, a session idle past `sessionIdleMs` (or unused past
 *   `unusedSessionMs`) of any principal makes room; otherwise the new session is refused. An
 *   active session of another principal is never closed to make room.
 * - Session ids are bearer secrets: the table keys sessions by a SHA-256 of the id, so neither
 *   a heap snapshot nor anything that walks the table holds the ids themselves, and a session is
 *   only found for the principal that opened it.
 */
import { hash } from 'node:crypto';
import { checkLimits } from './errors.ts';

export interface SessionLimits {
  /** Legacy sessions kept at once; past it, new sessions are refused (503). Default 1000. */
  readonly maxSessions: number;
  /** Sessions one principal keeps at once; past it, its own idlest is closed. Default 32. */
  readonly maxSessionsPerPrincipal: number;
  /** A session without a request for this long may be closed to make room. Default 30 minutes. */
  readonly sessionIdleMs: number;
  /** A session that made no request after initialize for this long may too. Default 1 minute. */
  readonly unusedSessionMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = Object.freeze({
  maxSessions: 1000,
  maxSessionsPerPrincipal: 32,
  sessionIdleMs: 30 * 60_000,
  unusedSessionMs: 60_000,
});

/**
 * What the table holds per session: the session itself, whose table fields these are (one
 * object per session, no entry of the table's own beside it).
 */
export interface SessionLike {
  /** The principal that opened it. */
  readonly principal: string;
  /** When the last request came. */
  lastSeen: number;
  /** Whether it served anything after initialize. */
  used: boolean;
  /** A call is waiting for its reply or a stream is open. */
  readonly busy: boolean;
  close(): Promise<void>;
}

/** Why a new session was refused. */
export type SessionRefusal = 'principal' | 'process';

// One-shot: every request on a session looks its id up.
const digest = (id: string) => hash('sha256', id, 'base64url');

export class SessionTable<T extends SessionLike> {
  readonly limits: SessionLimits;
  private readonly entries = new Map<string, T>();
  private readonly byPrincipal = new Map<string, Set<string>>();
  private readonly reserved = new Map<string, number>();
  private reservedTotal = 0;
  private readonly now: () => number;

  constructor(limits: SessionLimits, now: () => number = Date.now) {
    checkLimits('sessions', limits);
    this.limits = limits;
    this.now = now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The session `id` names, if `principal` opened it. */
  get(id: string, principal: string): T | undefined {
    const entry = this.entries.get(digest(id));
    return entry?.principal === principal ? entry : undefined;
  }

  /** A request came on the session. */
  touch(entry: T): void {
    entry.lastSeen = this.now();
  }

  /** Forgets a session (it closed). */
  delete(id: string): void {
    const key = digest(id);
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    const set = this.byPrincipal.get(entry.principal);
    set?.delete(key);
    if (set?.size === 0) this.byPrincipal.delete(entry.principal);
  }

  /**
   * Keeps a place for a new session of `principal`, closing an idle session to make room if
   * needed (the principal's own first, then any stale one), or says why there is none. The
   * place is the caller's until it gives it back (`unreserve`) when the session is added or
   * fails.
   */
  reserve(principal: string): SessionRefusal | undefined {
    const own = (this.byPrincipal.get(principal)?.size ?? 0) + (this.reserved.get(principal) ?? 0);
    if (own >= this.limits.maxSessionsPerPrincipal && !this.evict(principal)) return 'principal';
    if (this.entries.size + this.reservedTotal >= this.limits.maxSessions && !this.evict(undefined))
      return 'process';
    this.reserved.set(principal, (this.reserved.get(principal) ?? 0) + 1);
    this.reservedTotal++;
    return undefined;
  }

  /** Gives back a place `reserve` kept (its session was added, or failed). */
  unreserve(principal: string): void {
    this.reservedTotal--;
    const n = (this.reserved.get(principal) ?? 1) - 1;
    if (n === 0) this.reserved.delete(principal);
    else this.reserved.set(principal, n);
  }

  /** Puts a session in the place kept for it (give the place back with `unreserve`). */
  add(id: string, session: T): void {
    const key = digest(id);
    session.lastSeen = this.now();
    this.entries.set(key, session);
    const { principal } = session;
    let set = this.byPrincipal.get(principal);
    if (set === undefined) this.byPrincipal.set(principal, (set = new Set()));
    set.add(key);
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.byPrincipal.clear();
    await Promise.all(all.map((e) => e.close()));
  }

  /**
   * Closes one idle session to make room: within `principal` (any idle one, never used first,
   * then least recently seen), or across the table (only stale ones) when `principal` is
   * undefined. False when there is none to close.
   */
  private evict(principal: string | undefined): boolean {
    const now = this.now();
    const keys =
      principal === undefined ? this.entries.keys() : (this.byPrincipal.get(principal) ?? []);
    let victim: [string, T] | undefined;
    for (const key of keys) {
      const e = this.entries.get(key);
      if (e === undefined || e.busy) continue;
      if (principal === undefined) {
        const idle = now - e.lastSeen;
        if (idle < (e.used ? this.limits.sessionIdleMs : this.limits.unusedSessionMs)) continue;
      }
      if (victim === undefined || rank(e) < rank(victim[1])) victim = [key, e];
    }
    if (victim === undefined) return false;
    const [key, entry] = victim;
    this.entries.delete(key);
    const set = this.byPrincipal.get(entry.principal);
    set?.delete(key);
    if (set?.size === 0) this.byPrincipal.delete(entry.principal);
    void entry.close().catch(() => {});
    return true;
  }
}

/** Eviction order: sessions that never served a request first, then the least recently seen. */
function rank(e: SessionLike): number {
  return (e.used ? 0 : -Number.MAX_SAFE_INTEGER / 2) + e.lastSeen;
}
