/**
 * Which part of src/ may import which, and through which files: the tables below are the one in
 * docs/architecture.md ("Layers"). Every file under src/ is parsed for static `import`/`export …
 * from`, side-effect imports and dynamic `import()`; each relative import that leaves its part
 * must be allowed by the table, file by file: it targets one of the imported part's entries (its
 * package entries and its internal entry, `internal.ts`), or a file the table names. Within a
 * part anything goes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/** A part: a folder under src/, or a file directly in src/. */
type Part = string;

interface Allowance {
  /** The part imported. */
  readonly part: Part;
  /** Only these files of it (paths relative to src/); all of them when absent. */
  readonly files?: readonly string[];
  /** Only `import type` / `export type` (erased at runtime). */
  readonly typeOnly?: boolean;
}

/** The table. Node built-ins and packages are not parts (test/purity.test.ts watches those). */
export const LAYERS: Readonly<Record<Part, readonly (Part | Allowance)[]>> = {
  // The codes ElicitError carries come from the catalogue (a table of strings, importing nothing).
  'errors.ts': [{ part: 'kernel', files: ['kernel/error-codes.ts'] }],
  kernel: ['errors.ts'],
  // A sensitive field is judged as a person reads it: the Unicode confusables table (data and
  // its lookup, importing nothing else) is shared with the URL checks.
  schema: ['errors.ts', 'kernel', { part: 'url', files: ['url/confusables.ts'] }],
  url: ['errors.ts', 'kernel'],
  store: ['errors.ts', 'kernel'],
  // The root entry stays small: the revisions without the rest of the schema core.
  'index.ts': ['errors.ts', 'kernel', { part: 'schema', files: ['schema/revision.ts'] }],
  client: ['errors.ts', 'kernel', 'schema', 'url'],
  // The elements' browser bundle takes two SDK-free client files by name (the client's entries
  // carry the SDK, which no bundler can drop), and the confusables data as a lazy chunk.
  web: [
    'errors.ts',
    'kernel',
    'schema',
    'url',
    { part: 'url', files: ['url/confusables-data.ts'] },
    'client',
    { part: 'client', files: ['client/inert.ts', 'client/form-state.ts'] },
  ],
  server: ['errors.ts', 'kernel', 'schema', 'store'],
  // The connect pages implement the server's URL-mode port: its types, nothing else of the server.
  // They show pages a person reads: a URL waiting in the inbox is shown with its analysis (url).
  connect: [
    'errors.ts',
    'kernel',
    'url',
    { part: 'server', files: ['server/url-port.ts'], typeOnly: true },
  ],
  demo: ['errors.ts', 'kernel', 'schema', 'store', 'server', 'connect'],
  // The gateway composes the two sides: an SDK Client toward the server, an elicit server toward hosts.
  gateway: ['errors.ts', 'kernel', 'schema', 'url', 'store', 'server', 'client'],
  cli: ['errors.ts', 'kernel', 'schema', 'url', 'client', 'web', 'demo', 'gateway'],
  // Framework bindings (src/bindings/<framework>): mount the server, nothing else. None yet.
  bindings: ['errors.ts', 'kernel', 'server'],
};

/**
 * The files of each part other parts may import: its package entries (package.json `exports`)
 * and its internal entry (`internal.ts`, what siblings may use that is not public). The kernel
 * has none: it is a set of small leaf modules below every part, each importable on its own.
 */
export const ENTRIES: Readonly<Record<Part, readonly string[]>> = {
  'errors.ts': ['errors.ts'],
  kernel: ['kernel/*.ts'],
  schema: ['schema/index.ts', 'schema/internal.ts'],
  url: ['url/index.ts'],
  store: ['store/index.ts', 'store/testing.ts', 'store/internal.ts'],
  'index.ts': ['index.ts'],
  client: ['client/index.ts', 'client/terminal.ts', 'client/internal.ts'],
  web: ['web/index.ts', 'web/react.ts', 'web/internal.ts'],
  server: ['server/index.ts', 'server/internal.ts'],
  connect: ['connect/index.ts'],
  demo: ['demo/internal.ts'],
  gateway: ['gateway/index.ts'],
  cli: [],
  bindings: ['bindings/<framework>/index.ts'],
};

/** Whether `file` is one of `part`'s entries (`*` matches one path segment). */
export function isEntry(file: string, entries: typeof ENTRIES = ENTRIES): boolean {
  const part = partOf(file);
  return (entries[part] ?? []).some((e) =>
    new RegExp(`^${e.replace(/[.]/g, '\\.').replace(/\*|<[^>]+>/g, '[^/]+')}$`).test(file),
  );
}

/** Single type-only imports outside the table, each with its reason. None today. */
export const EXCEPTIONS: readonly { from: string; to: string; typeOnly: true }[] = [];

export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

const STATIC =
  /^[ \t]*(?:import|export)[ \t]+(type[ \t]+)?(?:[^;'"]*?[ \t\n]from[ \t]*)?['"]([^'"\n]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

/** Relative imports of one file (paths relative to src/), with whether each is type-only. */
export function importsOf(file: string, source: string, root: string): Edge[] {
  const from = relative(root, file).split(sep).join('/');
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith('.')) return;
    const to = relative(root, resolve(dirname(file), spec))
      .split(sep)
      .join('/');
    edges.push({ from, to, typeOnly });
  };
  for (const m of source.matchAll(STATIC)) add(m[2] as string, m[1] !== undefined);
  // Dynamic imports anywhere but in comment lines.
  const code = source
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l))
    .join('\n');
  for (const m of code.matchAll(DYNAMIC)) add(m[1] as string, false);
  return edges;
}

export const partOf = (path: string): Part => path.split('/')[0] as Part;

/** The edges the table and the exceptions do not allow, as readable lines. */
export function violations(
  edges: readonly Edge[],
  layers: typeof LAYERS = LAYERS,
  exceptions: typeof EXCEPTIONS = EXCEPTIONS,
  entries: typeof ENTRIES = ENTRIES,
): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const from = partOf(e.from);
    const to = partOf(e.to);
    if (from === to) continue;
    const rules = layers[from];
    if (rules === undefined) {
      out.push(`${e.from}: its part "${from}" is not in the layering table`);
      continue;
    }
    const allowed = rules.some((r) => {
      const a: Allowance = typeof r === 'string' ? { part: r } : r;
      return (
        a.part === to &&
        (a.files === undefined ? isEntry(e.to, entries) : a.files.includes(e.to)) &&
        (a.typeOnly !== true || e.typeOnly)
      );
    });
    const excepted = exceptions.some(
      (x) => x.from === e.from && x.to === e.to && (!x.typeOnly || e.typeOnly),
    );
    if (!allowed && !excepted)
      out.push(
        `${e.from} imports ${e.to}${e.typeOnly ? ' (type-only)' : ''}: ${from} -> ${to}${rules.includes(to) && !isEntry(e.to, entries) ? ` (not an entry of ${to}: ${(entries[to] ?? []).join(', ')})` : ''}`,
      );
  }
  return out;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

const ROOT = resolve('src');
const FILES = walk(ROOT);
const EDGES = FILES.flatMap((f) => importsOf(f, readFileSync(f, 'utf8'), ROOT));

describe('layering', () => {
  it('every part of src/ is in the table', () => {
    const parts = new Set(FILES.map((f) => partOf(relative(ROOT, f).split(sep).join('/'))));
    expect([...parts].filter((p) => LAYERS[p] === undefined)).toEqual([]);
  });

  it('the parser finds the imports (every relative import resolves to a file)', () => {
    expect(EDGES.length).toBeGreaterThan(300);
    expect(
      EDGES.filter((e) => !existsSync(join(ROOT, e.to))).map((e) => `${e.from} -> ${e.to}`),
    ).toEqual([]);
  });

  it('every import across parts follows the table', () => {
    expect(violations(EDGES)).toEqual([]);
  });

  it('the kernel imports nothing of ours but errors.ts', () => {
    const out = EDGES.filter((e) => partOf(e.from) === 'kernel' && partOf(e.to) !== 'kernel');
    expect(out.every((e) => e.to === 'errors.ts')).toBe(true);
  });

  it('the kernel is private: no package export and no public index re-exports it', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: object };
    expect(JSON.stringify(pkg.exports)).not.toContain('kernel');
    const indexes = FILES.filter((f) => /(^|[/\\])index\.ts$/.test(f) && !f.includes('kernel'));
    // The one exception is the public catalogue of error codes, which users match on.
    for (const f of indexes)
      expect(
        readFileSync(f, 'utf8').replaceAll("from './kernel/error-codes.ts'", ''),
        f,
      ).not.toMatch(/from '[./]*kernel\//);
  });

  it('every entry exists; every package entry and every internal.ts is an entry', () => {
    const files = FILES.map((f) => relative(ROOT, f).split(sep).join('/'));
    const missing = Object.values(ENTRIES)
      .flat()
      .filter((e) => !e.includes('*') && !e.includes('<') && !files.includes(e));
    expect(missing).toEqual([]);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      exports: Record<string, string | { types?: string }>;
    };
    const published = Object.values(pkg.exports).flatMap((t) =>
      typeof t === 'string' || t.types === undefined
        ? []
        : [t.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')],
    );
    const internal = files.filter((f) => f.endsWith('/internal.ts'));
    expect([...published, ...internal].filter((f) => !isEntry(f))).toEqual([]);
    expect(isEntry('kernel/keys.ts')).toBe(true);
    expect(isEntry('kernel/sub/keys.ts')).toBe(false);
  });

  it('a violation fails: each kind of edge the table refuses is reported', () => {
    const src = (path: string, text: string) => importsOf(join(ROOT, path), text, ROOT);
    const bad = [
      // A part importing upwards, statically, dynamically, by re-export.
      ...src('kernel/x.ts', "import { createServer } from '../server/app.ts';"),
      ...src('store/x.ts', "const m = await import('../server/once-store.ts');"),
      ...src('client/x.ts', "export { Records } from '../connect/records.ts';"),
      // The port allowance is type-only and names one file.
      ...src('connect/x.ts', "import { createSealer } from '../server/url-port.ts';"),
      ...src('connect/x.ts', "import type { Sealer } from '../server/seal.ts';"),
      // Multi-line import list, side-effect import.
      ...src(
        'schema/x.ts',
        "import {\n  a,\n  b,\n} from '../client/pipeline.ts';\nimport '../url/index.ts';",
      ),
      // An exception covers type-only imports only.
      ...src('server/engines/push.ts', "import { Records } from '../../connect/records.ts';"),
      // An allowed part, but a file that is none of its entries, by value or by type.
      ...src('server/x.ts', "import { memoryStore } from '../store/memory.ts';"),
      ...src('cli/x.ts', "import type { Renderer } from '../client/types.ts';"),
      // A file named for one part is not named for another.
      ...src('server/x.ts', "import { inert } from '../client/inert.ts';"),
      ...src('gateway/x.ts', "import { inert } from '../client/inert.ts';"),
    ];
    expect(violations(bad)).toHaveLength(12);
    expect(violations(bad)[8]).toContain('(not an entry of store: store/index.ts');
    // …and what the table allows is not reported.
    const good = [
      ...src('connect/x.ts', "import type { UrlPort } from '../server/url-port.ts';"),
      ...src('server/x.ts', "import { pooledRandom } from '../kernel/random.ts';"),
      ...src('kernel/x.ts', "import { ElicitError } from '../errors.ts';"),
      // Entries: the package entry, the internal entry, a second package entry of the part.
      ...src('server/x.ts', "import { memoryStore } from '../store/index.ts';"),
      ...src('server/x.ts', "import { onceStoreFrom } from '../store/internal.ts';"),
      ...src('cli/x.ts', "import { terminalRenderer } from '../client/terminal.ts';"),
      // A file the table names for this part.
      ...src('web/x.ts', "import { inert } from '../client/inert.ts';"),
      // Comments are not imports.
      ...src(
        'kernel/y.ts',
        "// import('../server/app.ts')\n/**\n * import x from '../cli/main.ts';\n */",
      ),
    ];
    expect(violations(good)).toEqual([]);
  });
});

/**
 * The "Layers" table of docs/architecture.md, as rules: each row's part, the backticked names in
 * its "entries" cell, and those in its "may import" cell (a part, or a file of one); "import
 * type" in that cell marks type-only.
 */
export function documentedLayers(
  markdown: string,
): Map<Part, { entries: string[]; names: string[]; typeOnly: boolean }> {
  const section = markdown.split('## Layers')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<Part, { entries: string[]; names: string[]; typeOnly: boolean }>();
  const ticked = (cell: string) =>
    [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).filter((n) => n !== 'import type');
  for (const line of section.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const part = /^`([^`]+)`/.exec(cells[1] ?? '')?.[1];
    if (part === undefined) continue;
    const cell = cells[3] ?? '';
    rows.set(part, {
      entries: ticked(cells[2] ?? ''),
      names: ticked(cell),
      typeOnly: cell.includes('import type'),
    });
  }
  return rows;
}

/** Where the documented table and LAYERS / ENTRIES differ, as readable lines. */
export function tableDrift(
  documented: ReturnType<typeof documentedLayers>,
  layers: typeof LAYERS = LAYERS,
  entries: typeof ENTRIES = ENTRIES,
): string[] {
  const out: string[] = [];
  const same = (a: readonly string[], b: readonly string[]) =>
    [...a].sort().join() === [...b].sort().join();
  for (const part of new Set([...documented.keys(), ...Object.keys(layers)])) {
    const doc = documented.get(part);
    const rules = layers[part];
    if (doc === undefined || rules === undefined) {
      out.push(`${part}: only in ${doc === undefined ? 'the test' : 'docs/architecture.md'}`);
      continue;
    }
    const expected = rules.flatMap((r) => (typeof r === 'string' ? [r] : (r.files ?? [r.part])));
    const typeOnly = rules.some((r) => typeof r !== 'string' && r.typeOnly === true);
    if (!same(expected, doc.names) || typeOnly !== doc.typeOnly)
      out.push(
        `${part}: the test allows ${expected.join(', ')}${typeOnly ? ' (type-only)' : ''}; the doc says ${doc.names.join(', ')}${doc.typeOnly ? ' (type-only)' : ''}`,
      );
    const own = entries[part] ?? [];
    if (!same(own, doc.entries))
      out.push(
        `${part}: the test's entries are ${own.join(', ')}; the doc says ${doc.entries.join(', ')}`,
      );
  }
  return out;
}

describe('docs/architecture.md agrees with the table', () => {
  const documented = documentedLayers(readFileSync('docs/architecture.md', 'utf8'));

  it('every row names the entries and what the test allows, and nothing else', () => {
    expect(documented.size).toBeGreaterThan(10);
    expect(tableDrift(documented)).toEqual([]);
  });

  it('the comparison can fail', () => {
    const moved = new Map(documented);
    moved.set('url', {
      entries: ['url/index.ts'],
      names: ['errors.ts', 'kernel', 'server'],
      typeOnly: false,
    });
    moved.set('demo', {
      ...(documented.get('demo') as { names: string[]; typeOnly: boolean }),
      entries: ['demo/stack.ts'],
    });
    moved.delete('cli');
    expect(tableDrift(moved)).toEqual([
      'url: the test allows errors.ts, kernel; the doc says errors.ts, kernel, server',
      "demo: the test's entries are demo/internal.ts; the doc says demo/stack.ts",
      'cli: only in the test',
    ]);
  });
});
