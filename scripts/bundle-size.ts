/** After `npm run build`: the browser bundle's size, raw and gzipped, against its 30 kB budget. */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const file = 'dist/browser/elicit-web.js';
const code = readFileSync(file);
const gz = gzipSync(code, { level: 9 }).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
console.log(
  `${file}: ${kb(code.length)} minified, ${kb(gz)} gzipped (both elements; budget 30 kB gzipped) ${gz <= 30 * 1024 ? 'ok' : 'OVER BUDGET'}`,
);
process.exit(gz <= 30 * 1024 ? 0 : 1);
