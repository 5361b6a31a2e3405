/**
 * URL elicitation records: what a connect link stands for. The link carries only an opaque
 * 128-bit id; everything else lives here, bound to the principal that asked (issuer + subject
 * from MCP authorization), never to a client claim or a session id alone.
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/types.ts';

export type RecordPurpose = 'connect' | 'secret';
export type RecordStatus = 'pending' | 'complete' | 'declined' | 'expired';

export interface UrlRecord {
  readonly id: string;
  readonly principal: string;
  /** The MCP client (OAuth client id) that asked, when known. */
  readonly clientId: string | undefined;
  readonly purpose: RecordPurpose;
  /** Provider name for `connect`; the secret's name for `secret`. */
  readonly subject: string;
  readonly label: string | undefined;
  readonly description: string | undefined;
  readonly status: RecordStatus;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Where the request came from, to route the completion notification (2025-11-25). */
  readonly origin: { readonly sessionId?: string } | undefined;
}

const key = (id: string) => `url:${id}`;

// Ids come from a pooled CSPRNG buffer: one call per 256 records instead of one each.
let pool = Buffer.alloc(0);
let at = 0;
function newId(): string {
  if (at + 16 > pool.length) {
    pool = randomBytes(16 * 256);
    at = 0;
  }
  at += 16;
  return pool.subarray(at - 16, at).toString('base64url');
}
const ID = /^[A-Za-z0-9_-]{22}$/;

export function isRecordId(id: string): boolean {
  return ID.test(id);
}

export class Records {
  readonly store: Store;
  readonly ttlMs: number;
  constructor(store: Store, ttlMs = 15 * 60_000) {
    this.store = store;
    this.ttlMs = ttlMs;
  }

  async create(
    fields: Omit<UrlRecord, 'id' | 'status' | 'createdAt' | 'expiresAt'>,
  ): Promise<UrlRecord> {
    const now = Date.now();
    const record: UrlRecord = {
      ...fields,
      id: newId(),
      status: 'pending',
      createdAt: now,
      expiresAt: now + this.ttlMs,
    };
    await this.store.create(key(record.id), record as never, {
      ttlMs: this.ttlMs + 60 * 60_000,
      tags: [`principal:${record.principal}`],
    });
    return record;
  }

  async get(id: string): Promise<UrlRecord | undefined> {
    if (!isRecordId(id)) return undefined;
    const stored = await this.store.get<never>(key(id));
    if (stored === undefined) return undefined;
    const record = stored.value as UrlRecord;
    return record.status === 'pending' && record.expiresAt <= Date.now()
      ? { ...record, status: 'expired' }
      : record;
  }

  /** Moves a pending record to `status`; false if it was not pending (already finished). */
  async finish(id: string, status: 'complete' | 'declined'): Promise<UrlRecord | undefined> {
    for (let tries = 0; tries < 5; tries++) {
      const stored = await this.store.get<never>(key(id));
      if (stored === undefined) return undefined;
      const record = stored.value as UrlRecord;
      if (record.status !== 'pending' || record.expiresAt <= Date.now()) return undefined;
      const next = { ...record, status };
      if (await this.store.update(key(id), stored.version, next as never)) return next;
    }
    return undefined;
  }

  async byPrincipal(principal: string): Promise<UrlRecord[]> {
    const keys = await this.store.findByTag(`principal:${principal}`);
    const out: UrlRecord[] = [];
    for (const k of keys) {
      const r = await this.get(k.slice('url:'.length));
      if (r !== undefined) out.push(r);
    }
    return out;
  }
}
