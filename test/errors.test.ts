/**
 * docs/errors.md, the catalogue (src/kernel/error-codes.ts) and the sources agree: every code
 * in the catalogue is documented with its reach, nothing documented is missing from the
 * catalogue, and every `ELICIT_*` string literal in src/ is a catalogued code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ElicitError } from '../src/errors.ts';
import * as catalogue from '../src/kernel/error-codes.ts';
import { ERROR_CODES } from '../src/kernel/error-codes.ts';

const root = resolve(import.meta.dirname, '..');
const codes = Object.keys(ERROR_CODES).sort();

/** Rows of the docs tables: | `ELICIT_X` | class | reach | meaning | what to do |. */
function documented(): Map<string, { reach: string; part: string }> {
  const rows = new Map<string, { reach: string; part: string }>();
  let part = '';
  for (const line of readFileSync(join(root, 'docs/errors.md'), 'utf8').split('\n')) {
    if (line.startsWith('## ')) part = line.slice(3);
    const m = /^\|\s*`(ELICIT_[A-Z0-9_]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|$/.exec(line);
    if (m === null) continue;
    const code = m[1] as string;
    expect(rows.has(code), `${code} is documented twice`).toBe(false);
    for (const cell of [m[2], m[4], m[5]])
      expect(cell?.trim(), `${code}: empty column`).not.toBe('');
    rows.set(code, { reach: (m[3] as string).trim(), part });
  }
  return rows;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

describe('error catalogue', () => {
  it('each exported constant is its own code and is catalogued', () => {
    const constants = Object.entries(catalogue).filter(([name]) => name.startsWith('ELICIT_'));
    for (const [name, value] of constants) expect(value, name).toBe(name);
    expect(constants.map(([name]) => name).sort()).toEqual(codes);
  });

  it('wire codes carry a JSON-RPC code, others do not', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(entry.reach === 'wire', code).toBe(Number.isInteger(entry.rpc));
      expect(entry.meaning.length, code).toBeGreaterThan(10);
    }
  });

  it('docs/errors.md documents every catalogued code and no other', () => {
    const docs = documented();
    const missing = codes.filter((c) => !docs.has(c));
    const unknown = [...docs.keys()].filter((c) => !Object.hasOwn(ERROR_CODES, c));
    expect(missing, 'catalogued but not in docs/errors.md').toEqual([]);
    expect(unknown, 'in docs/errors.md but not in src/kernel/error-codes.ts').toEqual([]);
  });

  it('docs/errors.md gives each code the reach the catalogue records', () => {
    const docs = documented();
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      const reach = entry.reach === 'wire' ? `wire (${entry.rpc})` : entry.reach;
      expect(docs.get(code)?.reach, code).toBe(reach);
    }
  });

  it('every ELICIT_* string literal in src/ is catalogued', () => {
    const strays: string[] = [];
    for (const file of sources(join(root, 'src'))) {
      // Comments may name environment variables such as `ELICIT_BROWSER`; only code counts.
      const text = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const m of text.matchAll(/(['"`])(ELICIT_[A-Za-z0-9_]*)(\$\{)?/g)) {
        const code = m[2] as string;
        if (m[3] !== undefined || !Object.hasOwn(ERROR_CODES, code))
          strays.push(`${relative(root, file)}: ${m[0]}`);
      }
    }
    expect(strays, 'add these to src/kernel/error-codes.ts (no codes built at run time)').toEqual(
      [],
    );
  });
});

describe('ElicitError codes', () => {
  it('are typed by the catalogue: a code that is not in it does not compile', () => {
    // @ts-expect-error 'ELICIT_NOT_CATALOGUED' is not an ElicitErrorCode (typecheck fails if it were).
    const e = new ElicitError('ELICIT_NOT_CATALOGUED', 'x');
    expect(e.code).toBe('ELICIT_NOT_CATALOGUED');
  });
});
