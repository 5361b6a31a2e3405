/**
 * After `npm run build`: the browser bundle's size, raw and gzipped, against its budget (the
 * confusables table, a chunk loaded only for forms with non-ASCII text, is reported beside it).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/** The most the browser bundle may weigh, gzipped (level 9), in kB (1024 bytes). */
export const BUDGET_KB = 25;

/** A built file's size, minified as built and gzipped at level 9, in kB with one decimal. */
export function measure(file: string): { minifiedKb: number; gzippedKb: number } {
  const code = readFileSync(file);
  const kb = (n: number) => Math.round((n / 1024) * 10) / 10;
  return { minifiedKb: kb(code.length), gzippedKb: kb(gzipSync(code, { level: 9 }).length) };
}

if (import.meta.main) {
  const file = 'dist/browser/elicit-web.js';
  const size = measure(file);
  const ok = size.gzippedKb <= BUDGET_KB;
  const lazy = measure('dist/browser/elicit-web-confusables-data.js');
  console.log(
    `${file}: ${size.minifiedKb} kB minified, ${size.gzippedKb} kB gzipped (both elements; budget ${BUDGET_KB} kB gzipped) ${ok ? 'ok' : 'OVER BUDGET'}; on demand: the confusables table, ${lazy.minifiedKb} kB minified, ${lazy.gzippedKb} kB gzipped`,
  );
  process.exit(ok ? 0 : 1);
}
