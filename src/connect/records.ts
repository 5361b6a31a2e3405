/**
 * URL elicitation records: what a connect link stands for. The link carries only an opaque
 * 128-bit id; everything else lives here, bound to the principal that asked (issuer + subject
 * from MCP authorization), never to a client claim or a session id alone.
 */
import { pooledRandom } from '../kernel/random.ts';
import type { Store } from '../kernel/store.ts';
import type { NewUrlRecord, UrlRecord, UrlRecordPort } from '../server/url-port.ts';

export type { RecordPurpose, RecordStatus, UrlRecord } from '../server/url-port.ts';

const key = (id: string) => `url:${id}`;

// Ids come from the pooled CSPRNG: one call per many records instead of one each.
const newId = (): string => Buffer.from(pooledRandom(16)).toString('base64url');
const ID = /^[A-Za-z0-9_-]{22}$/;

export function isRecordId(id: string): boolean {
  return ID.test(id);
}

export class Records implements UrlRecordPort {
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
      if (await this.store.update(k, stored.version, next as never)) return next;
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

  /** Counts a completed record once as an answer (after a -32042 retry): true the first time. */
  async claim(id: string): Promise<boolean> {
    return this.store.create(`claimed:${id}`, 1, { ttlMs: this.ttlMs * 2 });
  }
}
