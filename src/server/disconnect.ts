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
export const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest =>
  'method' in m && 'id' in m && m.id !== undefined;
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } =>
  'id' in m && m.id !== undefined && ('result' in m || 'error' in m);

export interface HangUps {
  /** Calls of the session not answered yet. */
  readonly inFlight: number;
}

/** Installs the hang-up watch on a connected session transport. */
export function cancelOnHangUp(transport: WebStandardStreamableHTTPServerTransport): HangUps {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  // Calls not answered yet, by id; and the calls each HTTP request carries.
  const open = new Map<RequestId, { done: boolean }>();
  transport.send = (message, options) => {
    if (isResponse(message)) {
      const call = open.get(message.id);
      if (call !== undefined) call.done = true;
      open.delete(message.id);
    }
    return send(message, options);
  };
  if (deliver !== undefined) {
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      const req = extra?.request;
      if (req !== undefined && isRequest(message)) watch(message.id, req);
      deliver(message, extra);
    };
  }
  function watch(requestId: RequestId, req: Request): void {
    const call = { done: false };
    open.set(requestId, call);
    const cancel = () => {
      if (call.done) return;
      call.done = true;
      open.delete(requestId);
      deliver?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'The client hung up.' },
      });
      // The SDK sends nothing for a cancelled call, and its transport keeps a call's entry until
      // a reply goes out: this reply (to nobody) releases it and the stream's keep-alive timer.
      void send({
        jsonrpc: '2.0',
        id: requestId,
        error: { code: ProtocolErrorCode.InternalError, message: 'The client hung up.' },
      }).catch(() => {});
    };
    if (req.signal.aborted) cancel();
    else req.signal.addEventListener('abort', cancel, { once: true });
  }
  return {
    get inFlight() {
      return open.size;
    },
  };
}
