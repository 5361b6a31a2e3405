/**
 * What a page's address means for what a person types into it, worded once: the terminal says
 * it before opening a page (url/analyze.ts) and the connect pages say it on the page
 * (connect/secret-routes.ts), so the two never tell different stories. On the way, only https
 * is encrypted; http on this computer (loopback) is not, but never leaves the machine. At rest,
 * the connect pages keep a secret encrypted in the vault; that is said by the page alone.
 */

/** An http page on this computer: not encrypted on the way, and not on any network either. */
export const TRANSIT_LOOPBACK_HTTP =
  'This page is on this computer: what you type is not encrypted on the way (http), and it does not leave this computer.';

/** An http page elsewhere: anyone on the network could read it (the terminal refuses it unless allowed). */
export const TRANSIT_REMOTE_HTTP =
  'This page is not encrypted (http): anyone on the network could read or change what you type.';

/** An https page. */
export const TRANSIT_HTTPS = 'What you type is encrypted on the way (https).';

/** The sentence for a page at this protocol and host kind. */
export function transitOf(protocol: string, loopback: boolean): string {
  if (protocol === 'https:') return TRANSIT_HTTPS;
  return loopback ? TRANSIT_LOOPBACK_HTTP : TRANSIT_REMOTE_HTTP;
}
