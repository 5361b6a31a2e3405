/**
 * A client that hangs up in the middle of a call must not leave the server waiting for it.
 *
 * On a legacy session the SDK keeps a request's handler running when the HTTP stream that
 * carries its reply goes away: an elicitation it pushed would wait out the whole ask timeout,
 * holding memory for nobody. So when the HTTP request of a call ends before its reply (its
 * `Request.signal` aborts, as the SDK's own stateless handler also relies on), the call is
 * cancelled as if the client had sent `notifications/cancelled`: the handler's signal aborts and
 * its waiting ask rejects with AskAbandonedError. A closed session needs nothing here: the SDK
 * then aborts every request of the session.
 */
import {
  type JSONRPCMessage,
  ProtocolErrorCode,
  type RequestId,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

// Shape checks only: what passes through a session transport is checked against the wire schemas
// by the SDK itself; here a message is only told apart, so no schema parse.
const isRequest = (m: unknown): m is { id: RequestId; method: string } =>
  m !== null &&
  typeof m === 'object' &&
  typeof (m as { method?: unknown }).method === 'string' &&
  (typeof (m as { id?: unknown }).id === 'string' ||
    typeof (m as { id?: unknown }).id === 'number');
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } =>
  'id' in m && m.id !== undefined && ('result' in m || 'error' in m);

type SendOptions = Parameters<WebStandardStreamableHTTPServerTransport['send']>[1];

/** The session's listener on its requests' signals, bound to the session when first needed. */
function heardAbort(this: HangUpTransport, event: Event): void {
  this.hungUp(event.target as AbortSignal);
}

/**
 * A session transport that cancels a call whose HTTP request ends before its reply. Its own
 * `send` (an override, nothing per session) sees each reply go out; the calls not answered yet
 * are in a table that exists only while there are some, so an idle session keeps nothing here.
 * One listener per session serves every request's signal (the aborted signal names the request),
 * so a waiting call keeps only its entry in the table and its signal's listener.
 */
export class HangUpTransport extends WebStandardStreamableHTTPServerTransport {
  // Calls not answered yet, by id: the signal of the HTTP request that carries each.
  #open: Map<RequestId, AbortSignal> | undefined;
  // The listener on the signals of this session's requests (made with its first call).
  #heard: ((event: Event) => void) | undefined;

  /** Calls of the session not answered yet. */
  get inFlight(): number {
    return this.#open?.size ?? 0;
  }

  /**
   * Watches the requests among `body` (one message or a batch, as parsed), about to be handed
   * to `handleRequest` with `req`: each is cancelled if `req` ends before its reply. True when
   * there was one.
   */
  watch(body: unknown, req: Request): boolean {
    const signal = req.signal;
    let any = false;
    for (const message of Array.isArray(body) ? body : [body])
      if (isRequest(message)) {
        any = true;
        (this.#open ??= new Map()).set(message.id, signal);
      }
    if (!any) return false;
    if (signal.aborted) this.hungUp(signal);
    // The same listener on the same signal is added once, whatever the batch holds.
    else signal.addEventListener('abort', (this.#heard ??= heardAbort.bind(this)), { once: true });
    return true;
  }

  /** Forgets the requests among `body`: the transport refused them, no reply will come. */
  unwatch(body: unknown): void {
    if (this.#open === undefined) return;
    for (const message of Array.isArray(body) ? body : [body])
      if (isRequest(message)) this.#forget(message.id);
  }

  override send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#open !== undefined && isResponse(message)) this.#forget(message.id);
    return super.send(message, options);
  }

  // The table goes with its last call: an idle session keeps none.
  #forget(requestId: RequestId): void {
    this.#open?.delete(requestId);
    if (this.#open?.size === 0) this.#open = undefined;
  }

  /**
   * The HTTP request whose signal is `signal` ended: each of its calls not answered yet is
   * cancelled (a call answered, or an id since reused by another request, is not its any more).
   */
  hungUp(signal: AbortSignal): void {
    const open = this.#open;
    if (open === undefined) return;
    const gone: RequestId[] = [];
    for (const [requestId, carrier] of open) if (carrier === signal) gone.push(requestId);
    for (const requestId of gone) {
      this.#forget(requestId);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'The client hung up.' },
      });
      // The SDK sends nothing for a cancelled call, and its transport keeps a call's entry until
      // a reply goes out: this reply (to nobody) releases it and the stream's keep-alive timer.
      void super
        .send({
          jsonrpc: '2.0',
          id: requestId,
          error: { code: ProtocolErrorCode.InternalError, message: 'The client hung up.' },
        })
        .catch(() => {});
    }
  }
}
