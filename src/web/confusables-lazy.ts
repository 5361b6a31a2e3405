/**
 * The browser bundle's stand-in for the confusables table: tsdown.config.ts puts this module in
 * place of src/url/confusables-data.ts for dist/browser/elicit-web.js, so the table (about a
 * quarter of the bundle) is its own chunk, fetched only for a form whose text is not all ASCII
 * (look-alike letters spelling "password" need it; ASCII text never does). Everywhere else the
 * real table is imported directly and loading it again changes nothing.
 */
export const CONFUSABLES_SOURCE = 'loaded on demand';
export const CONFUSABLE_ENTRIES: string[] = [];

let loading: Promise<void> | undefined;
let ready = false;

/** Whether the table is in place (then a form needing it renders at once). */
export const confusablesReady = (): boolean => ready;

/** Fetches the table once; later calls share the same promise. */
export function loadConfusables(): Promise<void> {
  loading ??= import('../url/confusables-data.ts').then((real) => {
    if (CONFUSABLE_ENTRIES.length === 0) CONFUSABLE_ENTRIES.push(...real.CONFUSABLE_ENTRIES);
    ready = true;
  });
  return loading;
}

/** Whether the text of a schema needs the table: anything beyond ASCII, or unreadable. */
export function needsConfusables(schema: unknown): boolean {
  try {
    return /[^\0-\x7f]/.test(JSON.stringify(schema) ?? '');
  } catch {
    return true;
  }
}
