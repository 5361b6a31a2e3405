/**
 * Arguments in `elicit host`: a form from a tool's input schema (JSON when it is not flat), a
 * prompt's arguments, a resource template's variables, and filling the template in.
 */

import type { Readable, Writable } from 'node:stream';
import * as p from '@clack/prompts';
import { inert } from '../../client/index.ts';
import type { TerminalRenderer } from '../../client/terminal.ts';
import { setOwn } from '../../kernel/own.ts';
import { fromJsonSchema } from '../../schema/index.ts';
import type { Host } from './state.ts';

/** What the arguments are for: the screen's title and verb. */
export interface ArgumentsFor {
  name: string;
  title?: string;
  description?: string;
  verb?: string;
}

/** The arguments screens: lines arriving meanwhile wait until they close. */
export async function argumentsScreen(
  h: Host,
  what: ArgumentsFor,
  inputSchema: unknown,
): Promise<Record<string, unknown> | undefined> {
  h.ui.promptStart();
  try {
    return await askArguments(what, inputSchema, h.terminal, h.io);
  } finally {
    h.ui.promptEnd();
  }
}

/** Arguments: the terminal's arguments screen when the input schema is flat, JSON otherwise. */
async function askArguments(
  what: ArgumentsFor,
  inputSchema: unknown,
  terminal: TerminalRenderer,
  io: { input: Readable; output: Writable },
): Promise<Record<string, unknown> | undefined> {
  const name = what.name;
  const schema = inputSchema as { properties?: Record<string, unknown> } | undefined;
  if (schema?.properties === undefined || Object.keys(schema.properties).length === 0) return {};
  let form: ReturnType<typeof fromJsonSchema>['form'] | undefined;
  try {
    form = fromJsonSchema(schema).form;
  } catch {
    // Not a flat schema a form can show: the arguments are typed as JSON.
  }
  if (form !== undefined) {
    const args = await terminal.arguments(what, form.schema);
    return args === undefined ? undefined : { ...args };
  }
  for (;;) {
    const text = await p.text({
      ...io,
      message: `Arguments for ${inert(name, 60, false)} (JSON)`,
      initialValue: '{}',
    });
    if (p.isCancel(text)) return undefined;
    try {
      const value = JSON.parse(text ?? '{}');
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {}
    p.log.error('Enter a JSON object, for example {"city": "Oslo"}.', io);
  }
}

/** Prompt arguments are strings: a flat form of text fields. */
export function promptSchema(
  args: readonly { name: string; description?: string; required?: boolean }[],
) {
  const properties: Record<string, unknown> = {};
  for (const a of args)
    setOwn(properties, a.name, { type: 'string', title: a.name, description: a.description });
  return {
    type: 'object',
    properties,
    required: args.filter((a) => a.required === true).map((a) => a.name),
  };
}

/** The form's values as the strings prompt arguments and template variables are; empty ones left out. */
export function stringArgs(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args))
    if (v !== undefined && v !== '') setOwn(out, k, String(v));
  return out;
}

/** The variable names of a URI template (RFC 6570 expressions, operators dropped). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/\{[+#./;?&]?([^}]*)\}/g))
    for (const part of (m[1] ?? '').split(','))
      if (part !== '' && !names.includes(part.replace(/\*$|:\d+$/, '')))
        names.push(part.replace(/\*$|:\d+$/, ''));
  return names;
}

/** Fills a URI template: simple and reserved expansion, values percent-encoded (RFC 6570 level 2). */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([+#]?)([^}]*)\}/g, (_all, op: string, list: string) => {
    const encode = op === '' ? encodeURIComponent : encodeURI;
    const parts = list
      .split(',')
      .map((v) => v.replace(/\*$|:\d+$/, ''))
      .filter((v) => Object.hasOwn(values, v))
      .map((v) => encode(values[v] as string));
    return (op === '#' && parts.length > 0 ? '#' : '') + parts.join(',');
  });
}
