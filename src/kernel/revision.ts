/**
 * Protocol revisions and eras in one place, so no part compares revision strings inline.
 * Revisions are dates (YYYY-MM-DD): their order is their text order. The modern era
 * (stateless requests, input_required with a sealed requestState) starts at 2026-07-28;
 * everything earlier is the legacy era (sessions, elicitation/create pushed by the server).
 */

/** Protocol revisions that speak elicitation, oldest first. */
export const REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];
export const LATEST_REVISION: Revision = '2026-07-28';
/** The first revision of the modern era. */
export const MODERN_REVISION: Revision = '2026-07-28';
/** The last revision of the legacy era (the one a legacy peer is assumed to speak). */
export const LEGACY_REVISION: Revision = '2025-11-25';

export type Era = 'legacy' | 'modern';

/** An era to speak, or `auto`: the newest both sides know (a host's or a gateway's choice). */
export type EraChoice = 'auto' | Era;

export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (REVISIONS as readonly string[]).includes(value);
}

/** Negative, zero or positive as `a` is older than, the same as or newer than `b`. */
export function compareRevisions(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when `revision` is `min` or newer. */
export function isAtLeast(revision: string, min: string): boolean {
  return compareRevisions(revision, min) >= 0;
}

/** The era a negotiated revision belongs to (unknown newer revisions are modern). */
export function eraOf(revision: string): Era {
  return isAtLeast(revision, MODERN_REVISION) ? 'modern' : 'legacy';
}

/**
 * The known revision whose schema rules apply to `revision`: itself when known; an unknown one
 * older than 2025-11-25 gets 2025-06-18's, anything else the latest's.
 */
export function schemaRevisionOf(revision: string): Revision {
  if (isRevision(revision)) return revision;
  return compareRevisions(revision, '2025-11-25') < 0 ? '2025-06-18' : LATEST_REVISION;
}

/**
 * Whether URL elicitations on `revision` carry an id that the server later completes with
 * `notifications/elicitation/complete`: 2025-11-25 and any later legacy revision (2025-06-18
 * has no URL mode; on 2026-07-28 the call is simply asked again).
 */
export function hasUrlCompletions(revision: string): boolean {
  return isAtLeast(revision, '2025-11-25') && eraOf(revision) === 'legacy';
}
