/** elicit/connect: the web side of URL mode (Node; mount the Hono app beside your MCP endpoint). */
export {
  type ConnectApp,
  ConnectConfigError,
  type ConnectEvent,
  type ConnectOptions,
  createConnectApp,
} from './app.ts';
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
export {
  type RecordPurpose,
  type RecordStatus,
  Records,
  type UrlRecord,
} from './records.ts';
export { type ConnectStackOptions, createConnectStack } from './stack.ts';
export { createVault, type Vault, type VaultEntry, VaultError, vaultEntryName } from './vault.ts';
