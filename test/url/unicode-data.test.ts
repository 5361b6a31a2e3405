import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'elicit-unicode-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the shipped Unicode security tables', () => {
  it('are exactly what the generator makes from the vendored UTS #39 files', () => {
    execFileSync(process.execPath, [join(root, 'scripts/build-unicode-security.ts'), out], {
      stdio: 'pipe',
    });
    for (const file of ['allowed-data.ts', 'confusables-data.ts']) {
      expect(readFileSync(join(out, file), 'utf8')).toBe(
        readFileSync(join(root, 'src/url', file), 'utf8'),
      );
    }
  });
});
