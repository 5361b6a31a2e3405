/**
 * One call wires the web side of URL mode from one store and one keyring: the records, the
 * vault and the pages all share the store, and the vault encrypts under the keyring. The
 * result is the server's URL-mode port: `createServer({ connect: { app: stack } })`.
 */
import type { Keyring } from '../kernel/keyring.ts';
import { type ConnectApp, createConnectApp } from './app.ts';
import { type CompletionBus, memoryBus } from './completion.ts';
import type { ConnectAppOptions } from './options.ts';
import { UrlRecords } from './records.ts';
import { createVault } from './vault.ts';

export interface ConnectStackOptions extends Omit<ConnectAppOptions, 'records' | 'vault' | 'bus'> {
  /** The vault's keyring (its own keys, not the server's sealing keys). */
  readonly keyring: Keyring;
  /** Completion events; default a memory bus (one process). Across replicas: redisBus(). */
  readonly bus?: CompletionBus;
  /** How long a connect link stays open; default 15 minutes. */
  readonly recordTtlMs?: number;
}

export function createConnectStack(options: ConnectStackOptions): ConnectApp {
  const { keyring, bus, recordTtlMs, ...pages } = options;
  return createConnectApp({
    ...pages,
    records: new UrlRecords(options.store, recordTtlMs),
    vault: createVault(options.store, keyring),
    bus: bus ?? memoryBus(),
  });
}
