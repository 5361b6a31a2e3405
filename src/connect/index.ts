/** elicit/connect: the web side of URL mode (Node; mount the Hono app beside your MCP endpoint). */
export { type ConnectApp, ConnectConfigError, createConnectApp } from './app.ts';
export {
  type CompletionBus,
  type CompletionEvent,
  memoryBus,
  postgresBus,
  redisBus,
} from './completion.ts';
export { ConnectLimitError, type ConnectLimits, DEFAULT_CONNECT_LIMITS } from './limits.ts';
export {
  devLogin,
  type Login,
  type LoginContext,
  type LoginEvent,
  type OidcLoginOptions,
  oidcLogin,
} from './login.ts';
export {
  OAuthFlowError,
  type ProviderConfig,
  ProviderConfigError,
  TokenDestinationError,
  type Tokens,
} from './oauth.ts';
export type { ConnectAppOptions, ConnectEvent } from './options.ts';
export {
  type RecordPurpose as UrlRecordPurpose,
  type RecordStatus as UrlRecordStatus,
  type UrlRecord,
  UrlRecords,
} from './records.ts';
export { type ConnectStackOptions, createConnectStack } from './stack.ts';
export { createVault, type Vault, type VaultEntry, VaultError, vaultEntryName } from './vault.ts';

// Deprecated spellings (CHANGELOG.md), kept for one minor version: they go in 0.3.
import type { ConnectAppOptions } from './options.ts';
import {
  type RecordPurpose as Purpose,
  type RecordStatus as Status,
  UrlRecords,
} from './records.ts';
/** @deprecated Renamed `ConnectAppOptions` in 0.2 ("connect" alone names nothing). */
export type ConnectOptions = ConnectAppOptions;
/** @deprecated Renamed `UrlRecords` in 0.2 (task records are records too). */
export const Records = UrlRecords;
/** @deprecated Renamed `UrlRecords` in 0.2 (task records are records too). */
export type Records = UrlRecords;
/** @deprecated Renamed `UrlRecordPurpose` in 0.2. */
export type RecordPurpose = Purpose;
/** @deprecated Renamed `UrlRecordStatus` in 0.2. */
export type RecordStatus = Status;
