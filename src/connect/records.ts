/**
 * URL elicitation records: what a connect link stands for. The link carries only an opaque
 * 128-bit id; everything else lives here, bound to the principal that asked (issuer + subject
 * from MCP authorization), never to a client claim or a session id alone.
 */
import { createHash } from 'node:crypto';
import { pooledRandom } from '../kernel/random.ts';
import type { Store, TagPage } from '../kernel/store.ts';
import type { NewUrlRecord, RecordPurpose, UrlRecord, UrlRecordPort } from '../server/url-port.ts';

export type { RecordPurpose, RecordStatus, UrlRecord } from '../server/url-port.ts';

const key = (id: string) => `url:${id}`;

/**
 * The index of one principal's completed records for one purpose and subject: a single record
 * holding their ids, newest last, so finding the completion a retried call may claim reads one
 * index and at most `COMPLETIONS_KEPT` records, however many records the principal has. The
 * digest keeps the key bounded whatever the principal and subject are.
 */
const completedKey = (principal: string, purpose: RecordPurpose, subject: string) =>
  `url-done:${createHash('sha256')
    .update(JSON.stringify([principal, purpose, subject]))
    .digest('base64url')}`;

/**
 * Completions kept per principal, purpose and subject. A retried call claims the newest
 * unclaimed one; more than this many completed for the same subject within a record's life is
 * a person opening the same link again and again, and the oldest are forgotten first.
 */
const COMPLETIONS_KEPT = 16;

/** The default page of `byPrincipal`. */
const PRINCIPAL_PAGE = 100;

// Ids come from the pooled CSPRNG: one call per many records instead of one each.
const newId = (): string => Buffer.from(pooledRandom(16)).toString('base64url');
const ID = /^[A-Za-z0-9_-]{22}$/;

export function isRecordId(id: string): boolean {
  return ID.test(id);
}

export class UrlRecords implements UrlRecordPort {
  readonly store: Store;
  readonly ttlMs: number;
  constructor(store: Store, ttlMs = 15 * 60_000) {
    this.store = store;
    this.ttlMs = ttlMs;
  }

  async create(fields: NewUrlRecord): Promise<UrlRecord> {
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
    const k = key(id);
    for (let tries = 0; tries < 5; tries++) {
      const stored = await this.store.get<never>(k);
      if (stored === undefined) return undefined;
      const record = stored.value as UrlRecord;
      if (record.status !== 'pending' || record.expiresAt <= Date.now()) return undefined;
      const next = { ...record, status };
      if (await this.store.update(k, stored.version, next as never)) {
        if (status === 'complete') await this.#indexCompletion(next);
        return next;
      }
    }
    return undefined;
  }

  /** Adds a completed record to its principal's index for its purpose and subject. */
  async #indexCompletion(record: UrlRecord): Promise<void> {
    const k = completedKey(record.principal, record.purpose, record.subject);
    // Kept as long as the records it names can be.
    const ttlMs = this.ttlMs + 60 * 60_000;
    for (let tries = 0; tries < 8; tries++) {
      const stored = await this.store.get<string[]>(k);
      if (stored === undefined) {
        if (await this.store.create(k, [record.id], { ttlMs })) return;
        continue;
      }
      const ids = [...stored.value, record.id].slice(-COMPLETIONS_KEPT);
      if (await this.store.update(k, stored.version, ids, { ttlMs })) return;
    }
  }

  /**
   * The principal's completed records for `purpose` and `subject`, newest first: one read of
   * their index and one per record it names (at most 16), not a listing of the principal's
   * records.
   */
  async completed(
    principal: string,
    purpose: RecordPurpose,
    subject: string,
  ): Promise<UrlRecord[]> {
    const stored = await this.store.get<string[]>(completedKey(principal, purpose, subject));
    if (stored === undefined) return [];
    const out: UrlRecord[] = [];
    for (const id of [...stored.value].reverse()) {
      const r = await this.get(id);
      // The index is a hint; the record itself says whose it is and how it ended.
      if (
        r !== undefined &&
        r.status === 'complete' &&
        r.principal === principal &&
        r.purpose === purpose &&
        r.subject === subject
      )
        out.push(r);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  /**
   * One page of the principal's live records, in id order: `page.limit` of them (100 unless
   * given) after `page.after` (a record id). Reads that page, never every record.
   */
  async byPrincipal(principal: string, page?: TagPage): Promise<UrlRecord[]> {
    const keys = await this.store.findByTag(`principal:${principal}`, {
      limit: page?.limit ?? PRINCIPAL_PAGE,
      ...(page?.after === undefined ? {} : { after: key(page.after) }),
    });
    const out: UrlRecord[] = [];
    for (const k of keys) {
      const r = await this.get(k.slice('url:'.length));
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  /** Counts a completed record once as an answer (after a -32042 retry): true the first time. */
  async claim(id: string): Promise<boolean> {
    return this.store.create(`claimed:${id}`, 1, { ttlMs: this.ttlMs * 2 });
  }
}
