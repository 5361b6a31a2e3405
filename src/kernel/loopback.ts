/**
 * Whether a host name or address only reaches this machine: the one rule for every loopback
 * allowance (a server bound beyond it, an http issuer in development, an inbox's address).
 */

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/** A host name or address that only reaches this machine (RFC 6761 `.localhost` included). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
