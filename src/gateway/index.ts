/** elicit/gateway: elicitation between any host and any server, across revisions. Node only. */

/** What `gateway.listen(where, await accessTokens(…))` takes to verify hosts' tokens. */
export { accessTokens } from '../server/index.ts';
export {
  createGateway,
  type Gateway,
  GatewayError,
  type GatewayLimits,
  type GatewayOptions,
} from './gateway.ts';
export { DEFAULT_HELD_LIMITS, HeldCallError, type HeldLimits } from './held.ts';
export {
  Inbox,
  type InboxAnswer,
  type InboxAsk,
  InboxError,
  type InboxOptions,
  type InboxQuestion,
} from './inbox.ts';
export type { InboxOidcOptions } from './inbox-login.ts';
export {
  type AuditEntry,
  type AuditLog,
  auditFile,
  checkPolicy,
  type Policy,
  type PolicyAction,
  PolicyError,
  type PolicyRule,
  readPolicy,
} from './policy.ts';
export { openSharedStore, type SharedStore, type SharedStoreOptions } from './shared.ts';
export type { UpstreamEra, UpstreamOptions } from './upstream.ts';
