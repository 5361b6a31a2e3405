/** elicit/server: one straight-line elicitation API for both protocol eras. Node only. */

export {
  AccessTokenConfigError,
  type AccessTokenOptions,
  type AccessTokens,
  accessTokens,
  DEFAULT_MAX_TOKEN_CHARS,
} from './access-tokens.ts';
export {
  createServer,
  type ElicitServer,
  type ElicitServerOptions,
  type ElicitWarning,
  type Era,
  type PromptConfig,
  type PromptHandler,
  type ResourceConfig,
  type ResourceHandler,
  type TaskOptions,
  type ToolConfig,
  type ToolHandler,
  type ToolOutput,
} from './app.ts';
export {
  type AllResult,
  type AllSpec,
  type AnswerOf,
  type Ask,
  type AskLimits,
  DEFAULT_ASK_LIMITS,
  type FormOptions,
  type FormResult,
  type FormSpec,
  type UrlResult,
} from './ask.ts';
export {
  AnswerRejectedError,
  AskAbandonedError,
  AskTimeoutError,
  AskUsageError,
  ElicitationUnsupportedError,
  LimitOptionError,
  ListenError,
  type PendingScope,
  ReplayError,
  RoundsExceededError,
  SensitiveFieldError,
  TooManyPendingAsksError,
} from './errors.ts';
export {
  BoundedEventStore,
  DEFAULT_EVENT_STORE_LIMITS,
  type EventStoreLimits,
} from './event-store.ts';
export type { FormInput } from './forms.ts';
export { type HttpOptions, httpEntry, type Listening, listen, type McpHttpEntry } from './http.ts';
export {
  InboxConfigError,
  InboxExpiredError,
  InboxFullError,
  type InboxSettings,
  type InboxWaiting,
} from './inbox.ts';
export { OnceStoreFullError, OnceStoreUnavailableError } from './once-store.ts';
export { DEFAULT_PENDING_LIMITS, type PendingLimits } from './pending.ts';
export {
  PrincipalConfigError,
  type PrincipalOption,
  type PrincipalResolver,
  TokenIssuerError,
} from './principal.ts';
export {
  checkKeyring,
  generateKeySecret,
  type Keyring,
  KeyringError,
  rotateKeyring,
  type SealKey,
  StateError,
  type StateFailure,
} from './seal.ts';
export { DEFAULT_SESSION_LIMITS, type SessionLimits } from './sessions.ts';
export { stdio } from './stdio.ts';
export {
  DEFAULT_LEGACY_TASK_LIMITS,
  type LegacyTaskLimits,
  TaskSessionLimitError,
} from './tasks/legacy-tasks.ts';
export {
  DEFAULT_TASK_LIMITS,
  TaskConflictError,
  TaskLimitError,
  type TaskLimits,
  TaskTooLargeError,
} from './tasks/records.ts';
export {
  type Connection,
  ConnectNotConfiguredError,
  type ConnectResult,
  type ConnectSettings,
  type SecretResult,
} from './url-mode.ts';
export type {
  CompletionPort,
  InboxAnswer,
  InboxCaps,
  InboxPort,
  InboxRecord,
  InboxStatus,
  NewInboxRecord,
  NewUrlRecord,
  UrlPort,
  UrlRecordPort,
} from './url-port.ts';
