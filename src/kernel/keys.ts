/**
 * Keys made of several parts, any of which a peer may choose (an issuer, a subject, a provider
 * or secret name, a record id): each part is a JSON string inside a JSON array, so the encoding
 * is injective whatever characters a part holds; no part can run into the next, and no tuple of
 * another length can produce the same key. Every composite key built from such parts is made
 * here.
 */

/** The key of `parts`: `["a","b"]`. Distinct tuples never give the same key. */
export function joinKey(...parts: readonly string[]): string {
  return JSON.stringify(parts);
}

/** The principal of a verified token (or a signed-in browser): issuer and subject, joined. */
export function tokenPrincipal(issuer: string, subject: string): string {
  return joinKey(issuer, subject);
}
