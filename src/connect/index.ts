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
  type RecordPurpose,
  type RecordStatus,
  Records,
  type UrlRecord,
} from './records.ts';
export { type ConnectStackOptions, createConnectStack } from './stack.ts';
export { createVault, type Vault, type VaultEntry, VaultError, vaultEntryName } from './vault.ts';

import type { ConnectAppOptions } from './options.ts';
/** @deprecated Renamed `ConnectAppOptions` in 0.2 ("connect" alone names nothing); this alias goes in 0.3. */
export type ConnectOptions = ConnectAppOptions;
