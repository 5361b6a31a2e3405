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
  type JSONRPCRequest,
  type MessageExtraInfo,
  ProtocolErrorCode,
  type RequestId,
  type WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

// Shape checks only: what passes through a session transport is checked against the wire schemas
// by the SDK itself; here a message is only told apart, on every message, so no schema parse.
const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest =>
  'method' in m && 'id' in m && m.id !== undefined;
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } =>
  'id' in m && m.id !== undefined && ('result' in m || 'error' in m);

export interface HangUps {
  /** Calls of the session not answered yet. */
  readonly inFlight: number;
}

interface Call {
  done: boolean;
}

type Transport = WebStandardStreamableHTTPServerTransport;
type SendOptions = Parameters<Transport['send']>[1];

/**
 * Installs the hang-up watch on a connected session transport; `onRequest` hears each request
 * the session receives. One object per session, its table of calls there only while calls are:
 * an idle session keeps only the two functions installed on its transport.
 */
export function cancelOnHangUp(transport: Transport, onRequest?: () => void): HangUps {
  const watch = new HangUpWatch(transport, onRequest);
  // Bound methods, not arrow functions: no scope of their own to keep for the session's life.
  transport.send = watch.sent.bind(watch);
  if (watch.deliver !== undefined) transport.onmessage = watch.received.bind(watch);
  return watch;
}

class HangUpWatch implements HangUps {
  readonly deliver: Transport['onmessage'];
  readonly #transport: Transport;
  readonly #send: Transport['send'];
  readonly #onRequest: (() => void) | undefined;
  // Calls not answered yet, by id.
  #open: Map<RequestId, Call> | undefined;

  constructor(transport: Transport, onRequest?: () => void) {
    this.deliver = transport.onmessage;
    this.#transport = transport;
    this.#send = transport.send;
    this.#onRequest = onRequest;
  }

  get inFlight(): number {
    return this.#open?.size ?? 0;
  }

  sent(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#open !== undefined && isResponse(message)) {
      const call = this.#open.get(message.id);
      if (call !== undefined) call.done = true;
      this.#forget(message.id);
    }
    return this.send(message, options);
  }

  // The table goes with its last call: an idle session (initialize answered) keeps none.
  #forget(requestId: RequestId): void {
    this.#open?.delete(requestId);
    if (this.#open?.size === 0) this.#open = undefined;
  }

  /** Sends through the transport's own `send`, past the watch. */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    return this.#send.call(this.#transport, message, options);
  }

  received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isRequest(message)) {
      this.#onRequest?.();
      const req = extra?.request;
      if (req !== undefined) this.#watch(message.id, req);
    }
    this.deliver?.(message, extra);
  }

  #watch(requestId: RequestId, req: Request): void {
    const call: Call = { done: false };
    (this.#open ??= new Map()).set(requestId, call);
    const cancel = () => {
      if (call.done) return;
      call.done = true;
      this.#forget(requestId);
      this.deliver?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'The client hung up.' },
      });
      // The SDK sends nothing for a cancelled call, and its transport keeps a call's entry until
      // a reply goes out: this reply (to nobody) releases it and the stream's keep-alive timer.
      void this.send({
        jsonrpc: '2.0',
        id: requestId,
        error: { code: ProtocolErrorCode.InternalError, message: 'The client hung up.' },
      }).catch(() => {});
    };
    if (req.signal.aborted) cancel();
    else req.signal.addEventListener('abort', cancel, { once: true });
  }
}
