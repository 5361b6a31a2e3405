/**
 * The URL-mode port: what `ask.connect` and `ask.secret` need from the web side, and nothing
 * more. The server codes against this; elicit/connect implements it (`createConnectStack`,
 * `createConnectApp`), so the server never imports the connect pages.
 */
import type { InboxAnswer } from '../kernel/inbox.ts';
import type { Json, Store } from '../kernel/store.ts';

export type RecordPurpose = 'connect' | 'secret';
export type RecordStatus = 'pending' | 'complete' | 'declined' | 'expired';

/** A URL elicitation record: what a connect link stands for, bound to the principal that asked. */
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

export type NewUrlRecord = Omit<UrlRecord, 'id' | 'status' | 'createdAt' | 'expiresAt'>;

export interface UrlRecordPort {
  /** A new pending record bound to `fields.principal`. */
  create(fields: NewUrlRecord): Promise<UrlRecord>;
  /** The record (`expired` once a pending one outlives its TTL), or undefined. */
  get(id: string): Promise<UrlRecord | undefined>;
  /** Moves a pending record to `status`; undefined if it was not pending. */
  finish(id: string, status: 'complete' | 'declined'): Promise<UrlRecord | undefined>;
  /**
   * The principal's records for `purpose` and `subject` that ended `complete`, newest first; a
   * bounded read (an index), never a listing of all the principal's records.
   */
  completed(principal: string, purpose: RecordPurpose, subject: string): Promise<UrlRecord[]>;
  /** Counts a completed record once as an answer: true the first time only, on any replica. */
  claim(id: string): Promise<boolean>;
}

export interface CompletionPort {
  /** Calls `listener` when a record leaves `pending`; returns the unsubscribe. */
  subscribe(
    listener: (event: { readonly id: string; readonly status: 'complete' | 'declined' }) => void,
  ): () => void;
}

/** An authorised handle on a provider's API, as the current user. */
export interface Connection {
  readonly provider: string;
  /**
   * `fetch` with the user's access token; refreshes once on 401 when a refresh token exists.
   * Only URLs on the provider's API origins are allowed (a TokenDestinationError otherwise), and
   * redirects are not followed: a 3xx comes back as it is.
   */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
}

export interface UrlPort {
  readonly records: UrlRecordPort;
  /** The link the person opens for a record. */
  link(id: string): string;
  readonly bus: CompletionPort;
  /** True when a provider of this name is configured. */
  hasProvider(name: string): boolean;
  /**
   * The principal's stored value for a subject (tokens or a secret), or undefined. With
   * `record`: the value that record's page saved (bound to the record until the request that
   * asked has read it), not the last one saved for the subject.
   */
  readEntry(
    principal: string,
    purpose: RecordPurpose,
    subject: string,
    record?: string,
  ): Promise<Json | undefined>;
  /**
   * The authorised fetch for the principal's tokens at `provider`; with `record`, the tokens
   * that record's page obtained (the principal's stored ones once the record's copy is gone).
   */
  connection(principal: string, provider: string, record?: string): Connection;
  /** The store the records live in; a server without a store of its own keeps ask.once markers there. */
  readonly store?: Store;
  /** The inbox, for asks the client cannot receive (createServer's `inbox` option). */
  readonly inbox?: InboxPort;
}

/** How a question in the inbox stands: waiting, answered on the page, or past its lifetime. */
export type InboxStatus = 'pending' | 'answered' | 'expired';

/** What the person did on the inbox page (one declaration with the gateway's inbox). */
export type { InboxAnswer } from '../kernel/inbox.ts';

/**
 * A question the client could not be asked, shown on the connect pages' inbox
 * (`createServer({ inbox })`): bound to the principal whose call asked, and to that call
 * (`call`: tool, canonical arguments and the ask's key) so a retried call on 2026-07-28 finds it.
 */
export interface InboxRecord {
  readonly id: string;
  readonly principal: string;
  readonly call: string;
  /** The server's name, the tool (or prompt) and the question, as the page shows them. */
  readonly server: string;
  readonly tool: string;
  readonly message: string;
  /** The form's schema (null for a URL page). */
  readonly requestedSchema: Json;
  /**
   * A URL page instead of a form (`ask.url`, `ask.connect`, `ask.secret`): the page the person
   * opens, shown with its analysis; opening it answers `accept`.
   */
  readonly url?: string | undefined;
  /** The URL-mode record behind `url` (`ask.connect`, `ask.secret`), whose completion is awaited. */
  readonly elicitationId?: string | undefined;
  readonly status: InboxStatus;
  readonly answer: InboxAnswer | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export type NewInboxRecord = Pick<
  InboxRecord,
  'principal' | 'call' | 'server' | 'tool' | 'message' | 'requestedSchema' | 'url' | 'elicitationId'
>;

/** The caps a new inbox question is created under. */
export interface InboxCaps {
  /** Questions waiting for one principal. */
  readonly perPrincipal: number;
  /** Questions waiting in the store, for everyone. */
  readonly total: number;
}

/** The inbox side of the port: records in the connect store and the page that shows them. */
export interface InboxPort {
  /** A new waiting question, or `full` (with which cap) when one of `caps` is reached. */
  create(
    fields: NewInboxRecord,
    ttlMs: number,
    caps: InboxCaps,
  ): Promise<InboxRecord | { readonly full: 'principal' | 'total' }>;
  /** The record (`expired` once a pending one outlives its lifetime), or undefined. */
  get(id: string): Promise<InboxRecord | undefined>;
  /** The newest record of `principal` for `call`, or undefined. */
  find(principal: string, call: string): Promise<InboxRecord | undefined>;
  /** Removes the record (its answer was used, or the call that asked is over). */
  remove(id: string): Promise<void>;
  /** The page where `principal`'s waiting questions are shown (after signing in). */
  readonly url: string;
}
