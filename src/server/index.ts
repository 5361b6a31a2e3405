/** elicit/server: one straight-line elicitation API for both protocol eras. Node only. */

export {
  createServer,
  defaultPrincipal,
  type ElicitServer,
  type ElicitServerOptions,
  type Era,
  type PromptHandler,
  type ToolConfig,
  type ToolHandler,
  type ToolOutput,
} from './app.ts';
export {
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
  AskTimeoutError,
  AskUsageError,
  ElicitationUnsupportedError,
  ReplayError,
  RoundsExceededError,
} from './errors.ts';
export type { FormInput } from './forms.ts';
export { type HttpOptions, httpEntry, type Listening, listen, type McpHttpEntry } from './http.ts';
export { memoryOnceStore, type OnceStore } from './once-store.ts';
export {
  createSealer,
  generateKeySecret,
  type Keyring,
  type SealKey,
  StateError,
  type StateFailure,
} from './seal.ts';
export { stdio } from './stdio.ts';
export {
  type Connection,
  ConnectNotConfiguredError,
  type ConnectResult,
  type ConnectSettings,
  type SecretResult,
} from './url-mode.ts';
