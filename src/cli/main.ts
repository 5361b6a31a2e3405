#!/usr/bin/env node
/**
 * The `elicit` command. `elicit demo` shows the schema engine at work on embedded defaults;
 * `elicit check <file.json>` checks a requested schema from a file.
 */
import { readFileSync } from 'node:fs';
import { styleText } from 'node:util';
import {
  checkSchema,
  formatPath,
  isRevision,
  LATEST_REVISION,
  type Revision,
} from '../schema/index.ts';
import { runSelfCheck } from './self-check.ts';

const HELP = `elicit: complete and safe MCP elicitation

Usage:
  elicit demo                         show the schema engine at work (no network, no files)
  elicit check <schema.json> [--revision 2025-06-18|2025-11-25|2026-07-28]
                                      check a requestedSchema against the restricted subset
  elicit --help                       this text
`;

function fail(message: string): never {
  process.stderr.write(`${styleText('red', 'error')}: ${message}\n`);
  process.exit(2);
}

function check(args: string[]): number {
  const file = args.find((a) => !a.startsWith('--'));
  if (file === undefined) fail('elicit check needs a file: elicit check schema.json');
  const at = args.indexOf('--revision');
  const revision = at === -1 ? LATEST_REVISION : args[at + 1];
  if (!isRevision(revision))
    fail(`--revision must be one of 2025-06-18, 2025-11-25, 2026-07-28; got ${String(revision)}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const schema = (raw as { requestedSchema?: unknown })?.requestedSchema ?? raw;
  const result = checkSchema(schema, { revision: revision as Revision });
  for (const w of result.warnings)
    process.stdout.write(`${styleText('yellow', 'warning')} ${formatPath(w.path)}: ${w.message}\n`);
  if (result.ok) {
    process.stdout.write(
      `${styleText('green', 'ok')}: ${result.schema.fields.length} field(s), valid for ${revision}\n`,
    );
    return 0;
  }
  for (const e of result.errors) process.stdout.write(`${styleText('red', e.code)} ${e.message}\n`);
  return 1;
}

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'demo':
    process.exit(runSelfCheck(process.stdout));
    break;
  case 'check':
    process.exit(check(rest));
    break;
  case undefined:
  case '--help':
  case '-h':
  case 'help':
    process.stdout.write(HELP);
    break;
  default:
    process.stderr.write(HELP);
    fail(`unknown command ${JSON.stringify(command)}`);
}
