/** The elements' fixed bounds, in one place (and importable without a DOM). */

/** Most characters and lines of a server message shown; its frame also caps its height. */
export const MESSAGE_LIMITS = { characters: 2000, lines: 12 } as const;

/** How long, in milliseconds, the consent's buttons ignore clicks and keys after it appears. */
export const CONSENT_ARM_MS = 500;
