/**
 * No background promise, timer or event emitter in src/ can end the process. Read from the
 * source, every place that starts work nobody awaits must show its
 * owner:
 * - `void promise` ends in `.catch(...)`, or calls a function listed below whose own body
 *   catches everything (each with its reason);
 * - a timer or an event listener is never an async function (its rejection would be unhandled);
 * - every ioredis client elicit makes has an `error` listener (through `watchRedis`).
 * The fault test (store-faults.test.ts) checks the same at run time, with a real outage.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `void` expressions that cannot reject, by file and how the expression starts, each with why.
 * A new entry is a reviewed decision, not a way around the rule.
 */
const NEVER_REJECTS: readonly { file: string; starts: string | RegExp; why: string }[] = [
  {
    file: 'src/web/',
    starts: /^[\w.?]+\.focus\(\)$/,
    why: 'HTMLElement.focus returns nothing (void marks it as a statement for the linter)',
  },
  { file: 'src/server/url-mode.ts', starts: 'check()', why: 'its body catches every error' },
  { file: 'src/server/inbox.ts', starts: 'check()', why: 'its body catches every error' },
  { file: 'src/server/tasks/watch.ts', starts: 'check()', why: 'it ends in .catch (faults)' },
  { file: 'src/web/inbox-page.ts', starts: 'poll()', why: 'its body catches every error' },
  { file: 'src/server/tasks/methods.ts', starts: 'drive(', why: 'drive catches and tells Faults' },
  {
    file: 'src/server/tasks/legacy-tasks.ts',
    starts: 'run?.done.then(',
    why: 'done is made by new Promise(resolve) only: it never rejects',
  },
  {
    file: 'src/client/task-receiver.ts',
    starts: 'e.done.then(',
    why: 'done is made by new Promise(resolve) only: it never rejects',
  },
  {
    file: 'src/client/task-receiver.ts',
    starts: 'wrapped({ ...request, params: rest } as never, taskCtx).then(',
    why: 'then with both handlers; end() only writes the entry',
  },
  {
    file: 'src/cli/host/run.ts',
    starts: 'h.link.close().finally(() => process.exit(130))',
    why: 'the process exits in finally, before any rejection could be reported',
  },
  {
    file: 'src/demo/idp.ts',
    starts: 'res.writeHead(',
    why: 'a ServerResponse, not a promise',
  },
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

interface Finding {
  readonly where: string;
  readonly what: string;
}

/** The statement starting at `from`: up to the first `;` (or the end) outside brackets. */
function statement(text: string, from: number): string {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i] as string;
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) return text.slice(from, i);
      depth--;
    } else if ((c === ';' || c === ',') && depth === 0) return text.slice(from, i);
  }
  return text.slice(from);
}

/** Comments blanked out (same length, so positions keep their lines). */
const code = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (m) => m.replace(/[^\n]/g, ' '));

function audit(file: string): Finding[] {
  const text = code(readFileSync(file, 'utf8'));
  const out: Finding[] = [];
  const at = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
  // `void expr` as an operator: not the type (`: void`, `=> void`, `<void>`, `| void`).
  for (const m of text.matchAll(/(?<![:>|<(,]\s*)(?<![\w.])void\s+(?=[\w(])/g)) {
    const expr = statement(text, (m.index ?? 0) + m[0].length).trim();
    if (!expr.includes('(')) continue; // `void 0`, `void x`: nothing runs
    const caught = /\.catch\(\s*[\s\S]*\)\s*$/.test(expr);
    const known = NEVER_REJECTS.some(
      (k) =>
        file.startsWith(k.file) &&
        (typeof k.starts === 'string' ? expr.startsWith(k.starts) : k.starts.test(expr)),
    );
    if (!caught && !known)
      out.push({ where: at(m.index ?? 0), what: `void ${expr.replace(/\s+/g, ' ').slice(0, 60)}` });
  }
  for (const m of text.matchAll(
    /(?:\b(setInterval|setTimeout)|\.(on|once))\(\s*(?:['"][^'"]*['"]\s*,\s*)?async\b/g,
  ))
    out.push({ where: at(m.index ?? 0), what: `async callback to ${m[1] ?? m[2]}` });
  for (const m of text.matchAll(/\bnew Redis\(/g))
    if (!/watchRedis\(|\.on\('error'/.test(text))
      out.push({ where: at(m.index ?? 0), what: 'an ioredis client without an error listener' });
  return out;
}

describe('detached work in src/ has an owner', () => {
  it('every void promise is caught, no timer or listener is async, every Redis client is watched', () => {
    const findings = files('src').flatMap(audit);
    expect(findings).toEqual([]);
  });

  it('the audit finds what it looks for', () => {
    // The rules themselves, on a file written to break each one.
    const dir = join('test', 'fixtures');
    const probe = join(dir, 'detached-probe.ts');
    const findings = audit(probe).map((f) => f.what);
    expect(findings).toEqual([
      "void store.get('k')",
      'async callback to setInterval',
      'async callback to on',
      'an ioredis client without an error listener',
    ]);
  });
});
