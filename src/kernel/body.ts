/**
 * A request body read as UTF-8 text within a byte limit, counted while it streams in
 * (Content-Length is only a hint): past the limit reading stops and the rest is never buffered.
 * Shared by the server's HTTP entry and the connect pages.
 */

/** The body of `req` as text, or undefined when it is larger than `maxBytes`. Read errors reject. */
export async function readTextWithin(req: Request, maxBytes: number): Promise<string | undefined> {
  if (Number(req.headers.get('content-length') ?? '0') > maxBytes) return undefined;
  if (req.body === null) return '';
  const reader = req.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    // Released once read: a stream keeps its reader (and the reader its state) for as long as
    // the Request lives, which for a waiting call is until it is answered.
    if (done) {
      reader.releaseLock();
      break;
    }
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => {});
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
