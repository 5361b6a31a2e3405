/**
 * Every `ELICIT_*` code elicit uses, in one place: throw sites name these constants, and
 * docs/errors.md documents each (test/errors.test.ts keeps the two in step). Codes are stable
 * across releases; users match on `error.code`, never on the message.
 */

/** Which part of elicit raises the code (the sections of docs/errors.md). */
export type ErrorPart =
  | 'general'
  | 'schema'
  | 'server'
  | 'connect'
  | 'store'
  | 'client'
  | 'gateway'
  | 'cli';

/**
 * Where the error goes: `local`, thrown in this process; `wire`, sent to the peer as a JSON-RPC
 * error (`rpc` is its code, `data.code` or `data.reason` says which); `warning`, given to
 * `onWarning` and never thrown.
 */
export type ErrorReach = 'local' | 'wire' | 'warning';

export interface ErrorCodeEntry {
  readonly part: ErrorPart;
  readonly reach: ErrorReach;
  /** The JSON-RPC error code, for wire errors. */
  readonly rpc?: number;
  readonly meaning: string;
}

export const ELICIT_LIMIT_INVALID = 'ELICIT_LIMIT_INVALID';
export const ELICIT_INTERNAL = 'ELICIT_INTERNAL';
export const ELICIT_LOGIN_CONFIG = 'ELICIT_LOGIN_CONFIG';
export const ELICIT_LOGIN_PROVIDER = 'ELICIT_LOGIN_PROVIDER';
export const ELICIT_LOGIN_STATE = 'ELICIT_LOGIN_STATE';
export const ELICIT_LOGIN_REFUSED = 'ELICIT_LOGIN_REFUSED';
export const ELICIT_LOGIN_BUSY = 'ELICIT_LOGIN_BUSY';
export const ELICIT_SCHEMA_INVALID = 'ELICIT_SCHEMA_INVALID';
export const ELICIT_CONVERSION_LIMIT = 'ELICIT_CONVERSION_LIMIT';
export const ELICIT_PATTERN_INVALID = 'ELICIT_PATTERN_INVALID';
export const ELICIT_PATTERN_UNSUPPORTED = 'ELICIT_PATTERN_UNSUPPORTED';
export const ELICIT_PATTERN_TOO_COMPLEX = 'ELICIT_PATTERN_TOO_COMPLEX';
export const ELICIT_PATTERN_TOO_COSTLY = 'ELICIT_PATTERN_TOO_COSTLY';
export const ELICIT_PATTERN_INPUT_TOO_LONG = 'ELICIT_PATTERN_INPUT_TOO_LONG';
export const ELICIT_PATTERN_FLAGS = 'ELICIT_PATTERN_FLAGS';
export const ELICIT_CLIENT_UNSUPPORTED = 'ELICIT_CLIENT_UNSUPPORTED';
export const ELICIT_ANSWER_INVALID = 'ELICIT_ANSWER_INVALID';
export const ELICIT_REPLAYED = 'ELICIT_REPLAYED';
export const ELICIT_TOO_MANY_ROUNDS = 'ELICIT_TOO_MANY_ROUNDS';
export const ELICIT_ASK_USAGE = 'ELICIT_ASK_USAGE';
export const ELICIT_TIMEOUT = 'ELICIT_TIMEOUT';
export const ELICIT_TOO_MANY_PENDING = 'ELICIT_TOO_MANY_PENDING';
export const ELICIT_ASK_ABANDONED = 'ELICIT_ASK_ABANDONED';
export const ELICIT_SENSITIVE_FIELD = 'ELICIT_SENSITIVE_FIELD';
export const ELICIT_LISTEN_PORT_IN_USE = 'ELICIT_LISTEN_PORT_IN_USE';
export const ELICIT_LISTEN_DENIED = 'ELICIT_LISTEN_DENIED';
export const ELICIT_LISTEN_ADDRESS = 'ELICIT_LISTEN_ADDRESS';
export const ELICIT_LISTEN_FAILED = 'ELICIT_LISTEN_FAILED';
export const ELICIT_CONNECT_NOT_CONFIGURED = 'ELICIT_CONNECT_NOT_CONFIGURED';
export const ELICIT_INBOX_NOT_CONFIGURED = 'ELICIT_INBOX_NOT_CONFIGURED';
export const ELICIT_INBOX_FULL = 'ELICIT_INBOX_FULL';
export const ELICIT_INBOX_EXPIRED = 'ELICIT_INBOX_EXPIRED';
export const ELICIT_NOT_CONNECTED = 'ELICIT_NOT_CONNECTED';
export const ELICIT_PRINCIPAL_CONFIG = 'ELICIT_PRINCIPAL_CONFIG';
export const ELICIT_TOKEN_NO_ISSUER = 'ELICIT_TOKEN_NO_ISSUER';
export const ELICIT_ACCESS_TOKEN_CONFIG = 'ELICIT_ACCESS_TOKEN_CONFIG';
export const ELICIT_ACCESS_TOKEN_ISSUER = 'ELICIT_ACCESS_TOKEN_ISSUER';
export const ELICIT_STATE_INVALID = 'ELICIT_STATE_INVALID';
export const ELICIT_KEYRING_INVALID = 'ELICIT_KEYRING_INVALID';
export const ELICIT_STATE_TOO_LARGE = 'ELICIT_STATE_TOO_LARGE';
export const ELICIT_ONCE_STORE_FULL = 'ELICIT_ONCE_STORE_FULL';
export const ELICIT_ONCE_STORE_UNAVAILABLE = 'ELICIT_ONCE_STORE_UNAVAILABLE';
export const ELICIT_ONCE_PROCESS_LOCAL = 'ELICIT_ONCE_PROCESS_LOCAL';
export const ELICIT_BACKGROUND_FAILED = 'ELICIT_BACKGROUND_FAILED';
export const ELICIT_TASK_LIMIT = 'ELICIT_TASK_LIMIT';
export const ELICIT_TASK_TOO_LARGE = 'ELICIT_TASK_TOO_LARGE';
export const ELICIT_TASK_CONFLICT = 'ELICIT_TASK_CONFLICT';
export const ELICIT_TASK_STORE_PROCESS_LOCAL = 'ELICIT_TASK_STORE_PROCESS_LOCAL';
export const ELICIT_TASK_SESSION_LIMIT = 'ELICIT_TASK_SESSION_LIMIT';
export const ELICIT_CLIENT_TASK_LIMIT = 'ELICIT_CLIENT_TASK_LIMIT';
export const ELICIT_PROVIDER_CONFIG = 'ELICIT_PROVIDER_CONFIG';
export const ELICIT_CONNECT_INSECURE = 'ELICIT_CONNECT_INSECURE';
export const ELICIT_TOKEN_DESTINATION = 'ELICIT_TOKEN_DESTINATION';
export const ELICIT_OAUTH_NO_PKCE = 'ELICIT_OAUTH_NO_PKCE';
export const ELICIT_OAUTH_METADATA = 'ELICIT_OAUTH_METADATA';
export const ELICIT_OAUTH_CALLBACK = 'ELICIT_OAUTH_CALLBACK';
export const ELICIT_OAUTH_TOKEN = 'ELICIT_OAUTH_TOKEN';
export const ELICIT_CONNECT_LIMIT = 'ELICIT_CONNECT_LIMIT';
export const ELICIT_KEY_INVALID = 'ELICIT_KEY_INVALID';
export const ELICIT_VAULT_CORRUPT = 'ELICIT_VAULT_CORRUPT';
export const ELICIT_STORE_FULL = 'ELICIT_STORE_FULL';
export const ELICIT_STORE_KEY = 'ELICIT_STORE_KEY';
export const ELICIT_STORE_TTL = 'ELICIT_STORE_TTL';
export const ELICIT_STORE_UNAVAILABLE = 'ELICIT_STORE_UNAVAILABLE';
export const ELICIT_ELICITATION_REFUSED = 'ELICIT_ELICITATION_REFUSED';
export const ELICIT_URL_TIMEOUT = 'ELICIT_URL_TIMEOUT';
export const ELICIT_URL_LOOP = 'ELICIT_URL_LOOP';
export const ELICIT_TASK_FAILED = 'ELICIT_TASK_FAILED';
export const ELICIT_TASK_CANCELLED = 'ELICIT_TASK_CANCELLED';
export const ELICIT_TASK_REFUSED = 'ELICIT_TASK_REFUSED';
export const ELICIT_TASK_TIMEOUT = 'ELICIT_TASK_TIMEOUT';
export const ELICIT_ROOT_INVALID = 'ELICIT_ROOT_INVALID';
export const ELICIT_SIGNIN_UNSAFE_URL = 'ELICIT_SIGNIN_UNSAFE_URL';
export const ELICIT_SIGNIN_STATE = 'ELICIT_SIGNIN_STATE';
export const ELICIT_SIGNIN_NO_FLOW = 'ELICIT_SIGNIN_NO_FLOW';
export const ELICIT_SIGNIN_TIMEOUT = 'ELICIT_SIGNIN_TIMEOUT';
export const ELICIT_SIGNIN_STRAY_REQUESTS = 'ELICIT_SIGNIN_STRAY_REQUESTS';
export const ELICIT_SIGNIN_CLOSED = 'ELICIT_SIGNIN_CLOSED';
export const ELICIT_SIGNIN_STORE_UNSAFE = 'ELICIT_SIGNIN_STORE_UNSAFE';
export const ELICIT_SIGNIN_STORE_CORRUPT = 'ELICIT_SIGNIN_STORE_CORRUPT';
export const ELICIT_HOST_SIGNIN = 'ELICIT_HOST_SIGNIN';
export const ELICIT_HOST_CONNECT = 'ELICIT_HOST_CONNECT';
export const ELICIT_HOST_BAD_ENV = 'ELICIT_HOST_BAD_ENV';
export const ELICIT_HOST_BAD_HEADER = 'ELICIT_HOST_BAD_HEADER';
export const ELICIT_HOST_GONE = 'ELICIT_HOST_GONE';
export const ELICIT_HOST_TIMEOUT = 'ELICIT_HOST_TIMEOUT';
export const ELICIT_HOST_CALL = 'ELICIT_HOST_CALL';
export const ELICIT_HOST_CANCELLED = 'ELICIT_HOST_CANCELLED';
export const ELICIT_CLI_USAGE = 'ELICIT_CLI_USAGE';
export const ELICIT_BROWSER_OPEN = 'ELICIT_BROWSER_OPEN';
export const ELICIT_GATEWAY_UPSTREAM = 'ELICIT_GATEWAY_UPSTREAM';
export const ELICIT_GATEWAY_HELD_LIMIT = 'ELICIT_GATEWAY_HELD_LIMIT';
export const ELICIT_GATEWAY_HELD_GONE = 'ELICIT_GATEWAY_HELD_GONE';
export const ELICIT_GATEWAY_NO_CALL = 'ELICIT_GATEWAY_NO_CALL';
export const ELICIT_GATEWAY_POLICY = 'ELICIT_GATEWAY_POLICY';
export const ELICIT_GATEWAY_HOLDER_LOST = 'ELICIT_GATEWAY_HOLDER_LOST';
export const ELICIT_GATEWAY_STORE = 'ELICIT_GATEWAY_STORE';
export const ELICIT_GATEWAY_INBOX_CONFIG = 'ELICIT_GATEWAY_INBOX_CONFIG';

export const ERROR_CODES: Readonly<Record<ElicitErrorCode, ErrorCodeEntry>> = {
  [ELICIT_LIMIT_INVALID]: {
    part: 'general',
    reach: 'local',
    meaning: 'A limit option (limits.*, sealsPerSalt) is not a positive whole number.',
  },
  [ELICIT_INTERNAL]: {
    part: 'general',
    reach: 'local',
    meaning: 'An internal invariant of elicit did not hold: a bug, not a usage mistake.',
  },
  [ELICIT_LOGIN_CONFIG]: {
    part: 'general',
    reach: 'local',
    meaning:
      'An OpenID sign-in is configured with an issuer that is not https (without allowInsecure) or with an empty client id.',
  },
  [ELICIT_LOGIN_PROVIDER]: {
    part: 'general',
    reach: 'local',
    meaning:
      'The OpenID provider could not be reached, or its discovery document is unusable (no authorization endpoint, another issuer).',
  },
  [ELICIT_LOGIN_STATE]: {
    part: 'general',
    reach: 'local',
    meaning:
      'A sign-in callback carries no state minted here, or one that expired, was used already, or was started in another browser.',
  },
  [ELICIT_LOGIN_REFUSED]: {
    part: 'general',
    reach: 'local',
    meaning:
      'The OpenID sign-in failed a check: the provider answered with an error, the code was refused (issued to another client, used, expired), or the ID token is missing or not from this issuer, client and nonce.',
  },
  [ELICIT_LOGIN_BUSY]: {
    part: 'general',
    reach: 'local',
    meaning:
      'Too many sign-ins are in progress at once; a new one is refused until some end or expire.',
  },
  [ELICIT_SCHEMA_INVALID]: {
    part: 'schema',
    reach: 'local',
    meaning: 'A requestedSchema or form failed the checks; `issues` names each problem by path.',
  },
  [ELICIT_CONVERSION_LIMIT]: {
    part: 'schema',
    reach: 'local',
    meaning:
      'A form cannot be lowered to an older revision within the limits (`field` and `limit` say where).',
  },
  [ELICIT_PATTERN_INVALID]: {
    part: 'schema',
    reach: 'local',
    meaning: 'A `pattern` is not a valid regular expression (u flag).',
  },
  [ELICIT_PATTERN_UNSUPPORTED]: {
    part: 'schema',
    reach: 'local',
    meaning:
      'A `pattern` uses backreferences, lookaround or inline modifiers, which the linear-time matcher cannot run.',
  },
  [ELICIT_PATTERN_TOO_COMPLEX]: {
    part: 'schema',
    reach: 'local',
    meaning: 'A `pattern` needs more matcher states than limits.maxPatternStates.',
  },
  [ELICIT_PATTERN_TOO_COSTLY]: {
    part: 'schema',
    reach: 'local',
    meaning:
      'One test of a `pattern` on the longest answer it admits could take more matcher steps than limits.maxPatternWork.',
  },
  [ELICIT_PATTERN_INPUT_TOO_LONG]: {
    part: 'schema',
    reach: 'local',
    meaning: 'Text tested against a compiled pattern is longer than limits.maxPatternInput.',
  },
  [ELICIT_PATTERN_FLAGS]: {
    part: 'schema',
    reach: 'local',
    meaning: 'A builder was given a RegExp with flags other than u, which cannot be sent.',
  },
  [ELICIT_CLIENT_UNSUPPORTED]: {
    part: 'server',
    reach: 'wire',
    rpc: -32021,
    meaning:
      'The client did not declare the capability an ask needs (form or URL elicitation, sampling, roots). Uncaught on 2026-07-28 it is -32021 with data.requiredCapabilities (HTTP 400); on 2025 revisions a tool answers isError.',
  },
  [ELICIT_ANSWER_INVALID]: {
    part: 'server',
    reach: 'local',
    meaning: 'The answers still failed validation after the allowed attempts.',
  },
  [ELICIT_REPLAYED]: {
    part: 'server',
    reach: 'local',
    meaning: 'An ask.once step already ran for this request state.',
  },
  [ELICIT_TOO_MANY_ROUNDS]: {
    part: 'server',
    reach: 'local',
    meaning: 'A handler asked in more rounds than limits.maxRounds.',
  },
  [ELICIT_ASK_USAGE]: {
    part: 'server',
    reach: 'local',
    meaning: 'An ask was called with a bad key, form or provider (a mistake in the handler).',
  },
  [ELICIT_TIMEOUT]: {
    part: 'server',
    reach: 'local',
    meaning: 'Nobody answered within the ask timeout (legacy sessions, where the server waits).',
  },
  [ELICIT_TOO_MANY_PENDING]: {
    part: 'server',
    reach: 'wire',
    rpc: -32000,
    meaning:
      'Too many asks already wait for an answer in this session, for this user or on this server; the call is refused on the wire with data.code, data.scope and data.limit.',
  },
  [ELICIT_ASK_ABANDONED]: {
    part: 'server',
    reach: 'local',
    meaning: 'The client cancelled the call, hung up or closed its session while an ask waited.',
  },
  [ELICIT_SENSITIVE_FIELD]: {
    part: 'server',
    reach: 'local',
    meaning:
      'A form field looks like it asks for a password, secret, API key, token, card or account number.',
  },
  [ELICIT_LISTEN_PORT_IN_USE]: {
    part: 'server',
    reach: 'local',
    meaning: 'listen(): the port is already in use.',
  },
  [ELICIT_LISTEN_DENIED]: {
    part: 'server',
    reach: 'local',
    meaning: 'listen(): this user may not listen on that port.',
  },
  [ELICIT_LISTEN_ADDRESS]: {
    part: 'server',
    reach: 'local',
    meaning: 'listen(): the host is not an address of this machine.',
  },
  [ELICIT_LISTEN_FAILED]: {
    part: 'server',
    reach: 'local',
    meaning: 'listen() failed for another reason (the cause is attached).',
  },
  [ELICIT_CONNECT_NOT_CONFIGURED]: {
    part: 'server',
    reach: 'local',
    meaning: 'ask.connect or ask.secret was used on a server without connect pages.',
  },
  [ELICIT_INBOX_NOT_CONFIGURED]: {
    part: 'server',
    reach: 'local',
    meaning: 'createServer({ inbox }) was given without connect pages that serve the inbox.',
  },
  [ELICIT_INBOX_FULL]: {
    part: 'server',
    reach: 'local',
    meaning:
      'A form the client cannot show would wait in the inbox, but this user, or everyone, already has inbox.maxPerPrincipal or inbox.maxTotal questions waiting.',
  },
  [ELICIT_INBOX_EXPIRED]: {
    part: 'server',
    reach: 'local',
    meaning:
      'A question waited in the inbox for inbox.waitMs and nobody answered it; it was withdrawn and the call ended.',
  },
  [ELICIT_NOT_CONNECTED]: {
    part: 'server',
    reach: 'local',
    meaning:
      'An authorised fetch found no tokens for this user, the provider refused them and would not renew them (the entry was removed), or the provider is no longer configured.',
  },
  [ELICIT_PRINCIPAL_CONFIG]: {
    part: 'server',
    reach: 'local',
    meaning:
      'The server would be reachable beyond loopback with a principal option that cannot tell callers apart.',
  },
  [ELICIT_TOKEN_NO_ISSUER]: {
    part: 'server',
    reach: 'wire',
    rpc: -32600,
    meaning:
      "An access token names a subject but no issuer, so its subject could be anyone's: the request is refused (-32600, data.reason 'token_without_issuer') unless your own principal resolver says who the caller is.",
  },
  [ELICIT_ACCESS_TOKEN_CONFIG]: {
    part: 'server',
    reach: 'local',
    meaning:
      'accessTokens() is given an issuer that is not https (without allowInsecure), a resource that is not an absolute http(s) address, or a token size limit that is not a positive whole number.',
  },
  [ELICIT_ACCESS_TOKEN_ISSUER]: {
    part: 'server',
    reach: 'local',
    meaning:
      'accessTokens() could not discover the issuer: it is unreachable, or its metadata names another issuer or no JWKS.',
  },
  [ELICIT_STATE_INVALID]: {
    part: 'server',
    reach: 'wire',
    rpc: -32602,
    meaning:
      "A requestState could not be opened (expired, tampered, other audience or request); onStateRejected gets the reason, the client sees -32602 with data.reason 'invalid_request_state'.",
  },
  [ELICIT_KEYRING_INVALID]: {
    part: 'server',
    reach: 'local',
    meaning: 'The sealing keyring cannot be used as given (missing, short or duplicate keys).',
  },
  [ELICIT_STATE_TOO_LARGE]: {
    part: 'server',
    reach: 'local',
    meaning: 'A sealed requestState would be longer than its limit.',
  },
  [ELICIT_ONCE_STORE_FULL]: {
    part: 'server',
    reach: 'local',
    meaning: 'The ask.once marker store is at its limit with live markers; the step did not run.',
  },
  [ELICIT_ONCE_STORE_UNAVAILABLE]: {
    part: 'server',
    reach: 'wire',
    rpc: -32603,
    meaning:
      'An ask.once marker could not be recorded (the store failed); the step did not run. The call ends with -32603, data.code ELICIT_ONCE_STORE_UNAVAILABLE and a fixed message.',
  },
  [ELICIT_BACKGROUND_FAILED]: {
    part: 'server',
    reach: 'warning',
    meaning:
      "Work running outside any request (a URL-mode wait's poll, a task's lease renewal, progress or journal write, a listen stream's read) failed; told once until it works again, while the work is retried or its request fails.",
  },
  [ELICIT_ONCE_PROCESS_LOCAL]: {
    part: 'server',
    reach: 'warning',
    meaning:
      'A shared keyring is configured but ask.once markers stay in this process, so replicas could run a step twice.',
  },
  [ELICIT_TASK_LIMIT]: {
    part: 'server',
    reach: 'local',
    meaning: 'A principal already has as many live tasks as tasks.maxLivePerPrincipal allows.',
  },
  [ELICIT_TASK_TOO_LARGE]: {
    part: 'server',
    reach: 'local',
    meaning: 'A task record (journal, pending requests, result) would exceed tasks.maxRecordBytes.',
  },
  [ELICIT_TASK_CONFLICT]: {
    part: 'server',
    reach: 'local',
    meaning: 'A task kept changing under every compare-and-set attempt to update it.',
  },
  [ELICIT_TASK_STORE_PROCESS_LOCAL]: {
    part: 'server',
    reach: 'warning',
    meaning:
      'Tasks are kept in this process only (no store given): they do not survive a restart and replicas cannot see them.',
  },
  [ELICIT_TASK_SESSION_LIMIT]: {
    part: 'server',
    reach: 'wire',
    rpc: -32000,
    meaning:
      'A 2025-11-25 session already runs as many tasks as tasks.maxRunningPerSession allows; the task-augmented call is refused with data.code and data.limit.',
  },
  [ELICIT_PROVIDER_CONFIG]: {
    part: 'connect',
    reach: 'local',
    meaning: "A provider's apiOrigins entry is not a bare https origin.",
  },
  [ELICIT_CONNECT_INSECURE]: {
    part: 'connect',
    reach: 'local',
    meaning: 'createConnectApp: baseUrl is not https and not on loopback.',
  },
  [ELICIT_TOKEN_DESTINATION]: {
    part: 'connect',
    reach: 'local',
    meaning:
      "An authorised fetch was pointed at an origin outside the provider's apiOrigins; the token was not sent.",
  },
  [ELICIT_OAUTH_NO_PKCE]: {
    part: 'connect',
    reach: 'local',
    meaning: "The provider's authorization server does not advertise PKCE S256.",
  },
  [ELICIT_OAUTH_METADATA]: {
    part: 'connect',
    reach: 'local',
    meaning: "The provider's authorization server metadata has no authorization endpoint.",
  },
  [ELICIT_OAUTH_CALLBACK]: {
    part: 'connect',
    reach: 'local',
    meaning: "The provider's sign-in response was refused (state, iss or error).",
  },
  [ELICIT_OAUTH_TOKEN]: {
    part: 'connect',
    reach: 'local',
    meaning: 'The authorization code could not be exchanged for tokens.',
  },
  [ELICIT_CONNECT_LIMIT]: {
    part: 'connect',
    reach: 'local',
    meaning: 'A limit passed to createConnectApp is not a positive whole number.',
  },
  [ELICIT_KEY_INVALID]: {
    part: 'connect',
    reach: 'local',
    meaning: 'A vault key is not exactly 32 bytes, or the vault keyring has no key.',
  },
  [ELICIT_VAULT_CORRUPT]: {
    part: 'connect',
    reach: 'local',
    meaning: 'A vault entry could not be decrypted (damaged, or its key was removed).',
  },
  [ELICIT_STORE_FULL]: {
    part: 'store',
    reach: 'wire',
    rpc: -32603,
    meaning:
      "The store has no room: the memory store holds maxEntries live entries (`limit` says how many), or the disk or database is full; nothing was written. The driver's own error is the `cause`. A request it ends gets -32603 with data.code and a fixed message.",
  },
  [ELICIT_STORE_KEY]: {
    part: 'store',
    reach: 'local',
    meaning: 'A store key or tag is empty, longer than 512 characters or has control characters.',
  },
  [ELICIT_STORE_TTL]: {
    part: 'store',
    reach: 'local',
    meaning: 'ttlMs is not a positive whole number of milliseconds.',
  },
  [ELICIT_STORE_UNAVAILABLE]: {
    part: 'store',
    reach: 'wire',
    rpc: -32603,
    meaning:
      "The store could not be reached or refused the operation (connection lost, read-only, locked); the driver's own error is the `cause`. A request it ends gets -32603 with data.code and a fixed message: the driver's text never reaches a client.",
  },
  [ELICIT_ELICITATION_REFUSED]: {
    part: 'client',
    reach: 'wire',
    rpc: -32602,
    meaning:
      'An elicitation request is outside what this client shows (bad params, undeclared mode, invalid schema); answered with -32602, and the person sees nothing.',
  },
  [ELICIT_URL_TIMEOUT]: {
    part: 'client',
    reach: 'local',
    meaning: 'The browser steps of a -32042 retry did not complete in time.',
  },
  [ELICIT_CLIENT_TASK_LIMIT]: {
    part: 'client',
    reach: 'wire',
    rpc: -32000,
    meaning:
      'A server asked for more task-augmented elicitations than the client keeps at once (receiveTasks.maxTasks); the request is refused with data.code and data.limit.',
  },
  [ELICIT_URL_LOOP]: {
    part: 'client',
    reach: 'local',
    meaning:
      'The server asked again for the same pages after they completed (-32042 loop); the call was stopped.',
  },
  [ELICIT_TASK_FAILED]: {
    part: 'client',
    reach: 'local',
    meaning:
      'A task the client followed ended in `failed`; the error carries the inlined JSON-RPC error (code, message).',
  },
  [ELICIT_TASK_CANCELLED]: {
    part: 'client',
    reach: 'local',
    meaning:
      'A followed task ended in `cancelled`: the server cancelled it, or the call was aborted and the client sent tasks/cancel.',
  },
  [ELICIT_TASK_REFUSED]: {
    part: 'client',
    reach: 'local',
    meaning:
      "A server sent a task outside the client's bounds (id, questions per poll or per task, unknown status or input method); the client sent tasks/cancel.",
  },
  [ELICIT_TASK_TIMEOUT]: {
    part: 'client',
    reach: 'local',
    meaning:
      'A followed task did not end within limits.maxPolls or limits.maxWaitMs; the client sent tasks/cancel.',
  },
  [ELICIT_ROOT_INVALID]: {
    part: 'client',
    reach: 'local',
    meaning:
      'A root given to RootList is not a file: URI, or the list is over limits.maxRoots or a URI over limits.maxUriLength; the roots were not changed.',
  },
  [ELICIT_SIGNIN_UNSAFE_URL]: {
    part: 'cli',
    reach: 'local',
    meaning: "The server's authorization page is not an https address; it is not opened.",
  },
  [ELICIT_SIGNIN_STATE]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The authorization URL does not carry the state this sign-in started with.',
  },
  [ELICIT_SIGNIN_NO_FLOW]: {
    part: 'cli',
    reach: 'local',
    meaning:
      'A sign-in callback arrived while no sign-in was in progress in this process (elicit host).',
  },
  [ELICIT_SIGNIN_TIMEOUT]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The sign-in was not completed in the browser in time.',
  },
  [ELICIT_SIGNIN_STRAY_REQUESTS]: {
    part: 'cli',
    reach: 'local',
    meaning:
      'The loopback sign-in listener received too many requests that were not the callback, and stopped.',
  },
  [ELICIT_SIGNIN_CLOSED]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The sign-in was abandoned before it completed.',
  },
  [ELICIT_SIGNIN_STORE_UNSAFE]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The saved sign-in directory or file is not private to you or not a regular file.',
  },
  [ELICIT_SIGNIN_STORE_CORRUPT]: {
    part: 'cli',
    reach: 'local',
    meaning: 'A saved sign-in file cannot be read.',
  },
  [ELICIT_HOST_SIGNIN]: {
    part: 'cli',
    reach: 'local',
    meaning: 'elicit host could not sign in to the server.',
  },
  [ELICIT_HOST_CONNECT]: {
    part: 'cli',
    reach: 'local',
    meaning: 'elicit host could not connect (or reconnect) to the server.',
  },
  [ELICIT_HOST_BAD_ENV]: {
    part: 'cli',
    reach: 'local',
    meaning: '--env or --env-file has an entry that is not KEY=VALUE, or the file cannot be read.',
  },
  [ELICIT_HOST_BAD_HEADER]: {
    part: 'cli',
    reach: 'local',
    meaning: '--header is not Name: value, or its value has a line break.',
  },
  [ELICIT_HOST_GONE]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The stdio server is not running any more.',
  },
  [ELICIT_HOST_TIMEOUT]: {
    part: 'cli',
    reach: 'local',
    meaning: 'No answer from the server within --timeout; the call was cancelled.',
  },
  [ELICIT_HOST_CALL]: {
    part: 'cli',
    reach: 'local',
    meaning: 'A call failed (the message names the cause).',
  },
  [ELICIT_HOST_CANCELLED]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The person cancelled the call (Ctrl-C); the server was told to stop.',
  },
  [ELICIT_CLI_USAGE]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The elicit command was run with arguments it does not take.',
  },
  [ELICIT_BROWSER_OPEN]: {
    part: 'cli',
    reach: 'local',
    meaning: 'The system browser (or ELICIT_BROWSER) could not be started.',
  },
  [ELICIT_GATEWAY_UPSTREAM]: {
    part: 'gateway',
    reach: 'local',
    meaning: 'elicit gateway could not connect to the server it fronts.',
  },
  [ELICIT_GATEWAY_HELD_LIMIT]: {
    part: 'gateway',
    reach: 'local',
    meaning:
      'The gateway holds as many calls waiting for answers as its limits allow (in the process, for this principal, or questions in one call).',
  },
  [ELICIT_GATEWAY_HELD_GONE]: {
    part: 'gateway',
    reach: 'local',
    meaning:
      'A retry named a held call this gateway no longer holds: it ended, expired, belongs to someone else, or its process restarted.',
  },
  [ELICIT_GATEWAY_NO_CALL]: {
    part: 'gateway',
    reach: 'local',
    meaning:
      'The server sent a request (elicitation, sampling, roots) outside any call and no host session can take it.',
  },
  [ELICIT_GATEWAY_POLICY]: {
    part: 'gateway',
    reach: 'local',
    meaning: 'An answer policy file cannot be read or has a rule elicit cannot use.',
  },
  [ELICIT_GATEWAY_HOLDER_LOST]: {
    part: 'gateway',
    reach: 'local',
    meaning:
      'A question in the inbox belongs to a call whose gateway process stopped (crashed, killed or restarted) before it was answered: the call is gone, so the question can no longer be answered.',
  },
  [ELICIT_GATEWAY_STORE]: {
    part: 'gateway',
    reach: 'local',
    meaning:
      'The shared store named for the gateway (--store) is not a redis://, rediss://, postgres:// or postgresql:// address.',
  },
  [ELICIT_GATEWAY_INBOX_CONFIG]: {
    part: 'gateway',
    reach: 'local',
    meaning:
      'The inbox cannot be served as configured: a publicUrl that is not https (or http on a loopback name), or an address beyond loopback without an https publicUrl.',
  },
};

export type ElicitErrorCode =
  | typeof ELICIT_LIMIT_INVALID
  | typeof ELICIT_INTERNAL
  | typeof ELICIT_LOGIN_CONFIG
  | typeof ELICIT_LOGIN_PROVIDER
  | typeof ELICIT_LOGIN_STATE
  | typeof ELICIT_LOGIN_REFUSED
  | typeof ELICIT_LOGIN_BUSY
  | typeof ELICIT_SCHEMA_INVALID
  | typeof ELICIT_CONVERSION_LIMIT
  | typeof ELICIT_PATTERN_INVALID
  | typeof ELICIT_PATTERN_UNSUPPORTED
  | typeof ELICIT_PATTERN_TOO_COMPLEX
  | typeof ELICIT_PATTERN_TOO_COSTLY
  | typeof ELICIT_PATTERN_INPUT_TOO_LONG
  | typeof ELICIT_PATTERN_FLAGS
  | typeof ELICIT_CLIENT_UNSUPPORTED
  | typeof ELICIT_ANSWER_INVALID
  | typeof ELICIT_REPLAYED
  | typeof ELICIT_TOO_MANY_ROUNDS
  | typeof ELICIT_ASK_USAGE
  | typeof ELICIT_TIMEOUT
  | typeof ELICIT_TOO_MANY_PENDING
  | typeof ELICIT_ASK_ABANDONED
  | typeof ELICIT_SENSITIVE_FIELD
  | typeof ELICIT_LISTEN_PORT_IN_USE
  | typeof ELICIT_LISTEN_DENIED
  | typeof ELICIT_LISTEN_ADDRESS
  | typeof ELICIT_LISTEN_FAILED
  | typeof ELICIT_CONNECT_NOT_CONFIGURED
  | typeof ELICIT_INBOX_NOT_CONFIGURED
  | typeof ELICIT_INBOX_FULL
  | typeof ELICIT_INBOX_EXPIRED
  | typeof ELICIT_NOT_CONNECTED
  | typeof ELICIT_PRINCIPAL_CONFIG
  | typeof ELICIT_TOKEN_NO_ISSUER
  | typeof ELICIT_ACCESS_TOKEN_CONFIG
  | typeof ELICIT_ACCESS_TOKEN_ISSUER
  | typeof ELICIT_STATE_INVALID
  | typeof ELICIT_KEYRING_INVALID
  | typeof ELICIT_STATE_TOO_LARGE
  | typeof ELICIT_ONCE_STORE_FULL
  | typeof ELICIT_ONCE_STORE_UNAVAILABLE
  | typeof ELICIT_ONCE_PROCESS_LOCAL
  | typeof ELICIT_BACKGROUND_FAILED
  | typeof ELICIT_TASK_LIMIT
  | typeof ELICIT_TASK_TOO_LARGE
  | typeof ELICIT_TASK_CONFLICT
  | typeof ELICIT_TASK_STORE_PROCESS_LOCAL
  | typeof ELICIT_TASK_SESSION_LIMIT
  | typeof ELICIT_CLIENT_TASK_LIMIT
  | typeof ELICIT_PROVIDER_CONFIG
  | typeof ELICIT_CONNECT_INSECURE
  | typeof ELICIT_TOKEN_DESTINATION
  | typeof ELICIT_OAUTH_NO_PKCE
  | typeof ELICIT_OAUTH_METADATA
  | typeof ELICIT_OAUTH_CALLBACK
  | typeof ELICIT_OAUTH_TOKEN
  | typeof ELICIT_CONNECT_LIMIT
  | typeof ELICIT_KEY_INVALID
  | typeof ELICIT_VAULT_CORRUPT
  | typeof ELICIT_STORE_FULL
  | typeof ELICIT_STORE_KEY
  | typeof ELICIT_STORE_TTL
  | typeof ELICIT_STORE_UNAVAILABLE
  | typeof ELICIT_ELICITATION_REFUSED
  | typeof ELICIT_URL_TIMEOUT
  | typeof ELICIT_URL_LOOP
  | typeof ELICIT_TASK_FAILED
  | typeof ELICIT_TASK_CANCELLED
  | typeof ELICIT_TASK_REFUSED
  | typeof ELICIT_TASK_TIMEOUT
  | typeof ELICIT_ROOT_INVALID
  | typeof ELICIT_SIGNIN_UNSAFE_URL
  | typeof ELICIT_SIGNIN_STATE
  | typeof ELICIT_SIGNIN_NO_FLOW
  | typeof ELICIT_SIGNIN_TIMEOUT
  | typeof ELICIT_SIGNIN_STRAY_REQUESTS
  | typeof ELICIT_SIGNIN_CLOSED
  | typeof ELICIT_SIGNIN_STORE_UNSAFE
  | typeof ELICIT_SIGNIN_STORE_CORRUPT
  | typeof ELICIT_HOST_SIGNIN
  | typeof ELICIT_HOST_CONNECT
  | typeof ELICIT_HOST_BAD_ENV
  | typeof ELICIT_HOST_BAD_HEADER
  | typeof ELICIT_HOST_GONE
  | typeof ELICIT_HOST_TIMEOUT
  | typeof ELICIT_HOST_CALL
  | typeof ELICIT_HOST_CANCELLED
  | typeof ELICIT_CLI_USAGE
  | typeof ELICIT_BROWSER_OPEN
  | typeof ELICIT_GATEWAY_UPSTREAM
  | typeof ELICIT_GATEWAY_HELD_LIMIT
  | typeof ELICIT_GATEWAY_HELD_GONE
  | typeof ELICIT_GATEWAY_NO_CALL
  | typeof ELICIT_GATEWAY_POLICY
  | typeof ELICIT_GATEWAY_HOLDER_LOST
  | typeof ELICIT_GATEWAY_STORE
  | typeof ELICIT_GATEWAY_INBOX_CONFIG;
