/**
 * Request bodies of the connect pages: read only after the same-origin check, counted while they
 * stream in and abandoned at the limit (Content-Length is only a hint), then parsed as the one
 * encoding the pages' forms use.
 */
import { readTextWithin } from '../kernel/body.ts';
import { failed, type Who } from './pages.ts';

/** The form fields of `req`, or the page that refuses it (413 past `maxBytes`, 415 not a form). */
export async function readForm(
  req: Request,
  maxBytes: number,
  who: Who | null,
): Promise<URLSearchParams | Response> {
  const type = (req.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    return failed('This page only accepts its own form.', who, 415);
  const tooLarge = () =>
    tooBig(failed(`This form is larger than ${maxBytes} bytes; nothing was read.`, who, 413));
  const text = await readTextWithin(req, maxBytes);
  // Past the limit reading stopped: the rest is never buffered, and the connection is closed.
  return text === undefined ? tooLarge() : new URLSearchParams(text);
}

function tooBig(res: Response): Response {
  res.headers.set('connection', 'close');
  return res;
}
