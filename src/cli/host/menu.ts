/**
 * The menu of `elicit host`: tools, prompts, resources, templates, links seen in results, the
 * Roots screen and Quit; drawn again in place when the server's lists change.
 */

import * as p from '@clack/prompts';
import { inert } from '../../client/index.ts';
import { closable } from '../../client/internal.ts';
import { ElicitError } from '../../errors.ts';
import {
  argumentsScreen,
  fillTemplate,
  promptSchema,
  stringArgs,
  templateVariables,
} from './arguments.ts';
import { connect } from './connection.ts';
import { Cancelled, describeFailure } from './errors.ts';
import { callTool, request } from './request.ts';
import { renderPrompt, renderResource, renderToolResult } from './results.ts';
import { notADirectory, pathOf, rootOf } from './roots.ts';
import { failure, flush, type Host, type Named, quitCode, type Template, tapped } from './state.ts';

/** The interactive host: the menu until Quit; the exit code. */
export async function menuLoop(h: Host): Promise<number> {
  const { io, link } = h;
  let lastChoice: string | undefined;
  for (;;) {
    flush(h);
    if (!link.alive && link.isStdio) {
      const choice = await p.select({
        ...io,
        message: 'The server is not running.',
        options: [
          { value: 'restart', label: 'Restart the server' },
          { value: 'quit', label: 'Quit' },
        ],
      });
      if (p.isCancel(choice)) return 130;
      if (choice === 'quit') return 0;
      if (!(await connect(h))) continue;
    }
    const menu = new AbortController();
    h.menu = menu;
    const options = menuOptions(h);
    h.ui.promptStart();
    let choice: unknown;
    try {
      choice = await tapped(h, () =>
        closable(io.input, menu.signal, (signal) =>
          p.select({
            ...io,
            output: h.menuTap,
            // The cursor stays where the person left it.
            initialValue: options.some((o) => o.value === lastChoice) ? lastChoice : undefined,
            message:
              h.lists.prompts.length + h.lists.resources.length > 0
                ? 'Call a tool, get a prompt or read a resource'
                : 'Call a tool',
            options,
            signal,
          }),
        ),
      );
    } finally {
      h.ui.promptEnd();
    }
    const redraw = menu.signal.aborted;
    h.menu = undefined;
    if (p.isCancel(choice)) {
      if (redraw) {
        // The lists changed: the new menu takes the old one's place.
        h.menuTap.erase();
        continue;
      }
      return 130;
    }
    lastChoice = String(choice);
    const [kind, name = ''] = String(choice).split('\u0000');
    if (kind === 'q') return 0;
    try {
      if (kind === 'R') await rootsScreen(h);
      else if (kind === 't') await toolChosen(h, name);
      else if (kind === 'p') await promptChosen(h, name);
      else if (kind === 'T') await templateChosen(h, name);
      else if (kind === 'r') await readResource(h, name);
    } catch (error) {
      if (quitCode(h) !== undefined) return 130;
      if (error instanceof Cancelled) {
        h.interrupts = 0;
        p.log.warn('Cancelled. The server was told to stop.', io);
      } else p.log.error(`The request failed: ${failure(h, error)}`, io);
    }
  }
}

/** The menu's items: each value is a kind letter and a name, joined by NUL. */
function menuOptions(h: Host) {
  const { lists, roots } = h;
  return [
    ...lists.tools.map((t) => ({
      value: `t\u0000${t.name}`,
      label: inert(t.title ?? t.name, 60, false),
      hint: inert(t.description ?? '', 80, false),
    })),
    ...lists.prompts.map((t) => ({
      value: `p\u0000${t.name}`,
      label: `prompt: ${inert(t.title ?? t.name, 60, false)}`,
      hint: inert(t.description ?? '', 80, false),
    })),
    ...lists.resources.map((t) => ({
      value: `r\u0000${t.uri ?? ''}`,
      label: `resource: ${inert(t.title ?? t.name, 60, false)}`,
      hint: inert(t.uri ?? '', 80, false),
    })),
    ...h.templates.map((t) => ({
      value: `T\u0000${t.uriTemplate}`,
      label: `template: ${inert(t.title ?? t.name, 60, false)}`,
      hint: inert(t.uriTemplate, 80, false),
    })),
    ...[...h.links].map(([uri, name]) => ({
      value: `r\u0000${uri}`,
      label: `link: ${inert(name, 60, false)}`,
      hint: inert(uri, 80, false),
    })),
    {
      value: 'R\u0000',
      label: 'Roots',
      hint: `${roots.roots.length === 1 ? '1 directory' : `${roots.roots.length} directories`} the server may work in; add or remove`,
    },
    { value: 'q\u0000', label: 'Quit' },
  ];
}

/** A tool from the menu: its arguments, the call, the result; links in it join the menu. */
async function toolChosen(h: Host, name: string): Promise<void> {
  const { io, limits } = h;
  const tool = h.lists.tools.find((t) => t.name === name) as Named;
  const args = await argumentsScreen(h, tool, tool.inputSchema);
  if (args === undefined) return;
  const result = await request(h, `Calling ${inert(tool.name, 60, false)}`, (options) =>
    callTool(h, tool.name, args, options),
  );
  if (result.isError === true) p.log.error(renderToolResult(result, limits), io);
  else p.log.success(renderToolResult(result, limits), io);
  // Resource links in the result can be followed from the menu.
  for (const item of (result.content ?? []) as {
    type?: string;
    uri?: unknown;
    name?: unknown;
  }[])
    if (
      item.type === 'resource_link' &&
      typeof item.uri === 'string' &&
      h.links.size < limits.listedTemplates
    )
      h.links.set(item.uri, typeof item.name === 'string' ? item.name : item.uri);
}

/** A prompt from the menu: its arguments, then its messages. */
async function promptChosen(h: Host, name: string): Promise<void> {
  const prompt = h.lists.prompts.find((t) => t.name === name) as Named;
  const args = await argumentsScreen(
    h,
    { ...prompt, verb: 'Get' },
    promptSchema(prompt.arguments ?? []),
  );
  if (args === undefined) return;
  const result = await request(h, `Getting prompt ${inert(prompt.name, 60, false)}`, (options) =>
    h.link.elicit.followTasks(
      () => h.link.client.getPrompt({ name: prompt.name, arguments: stringArgs(args) }, options),
      options,
    ),
  );
  p.log.success(renderPrompt(result, h.limits), h.io);
}

/** A resource template from the menu: its variables, then the resource it names. */
async function templateChosen(h: Host, uriTemplate: string): Promise<void> {
  const template = h.templates.find((t) => t.uriTemplate === uriTemplate) as Template;
  const vars = templateVariables(template.uriTemplate);
  const args = await argumentsScreen(
    h,
    {
      name: template.name,
      title: template.title,
      description: template.description,
      verb: 'Read',
    },
    promptSchema(vars.map((v) => ({ name: v, required: true }))),
  );
  if (args === undefined) return;
  await readResource(h, fillTemplate(template.uriTemplate, stringArgs(args)));
}

/** A resource (listed, a link, or a filled template) read and shown. */
async function readResource(h: Host, uri: string): Promise<void> {
  const result = await request(h, `Reading ${inert(uri, 80, false)}`, (options) =>
    h.link.elicit.followTasks(() => h.link.client.readResource({ uri }, options), options),
  );
  p.log.success(renderResource(result, h.limits), h.io);
}

/**
 * The Roots screen: the directories the server may work in, one to remove or a new one to
 * add; every change is sent to the server (notifications/roots/list_changed).
 */
async function rootsScreen(h: Host): Promise<void> {
  const { io, roots } = h;
  for (;;) {
    const current = roots.roots;
    h.ui.promptStart();
    let choice: unknown;
    let dir: unknown;
    try {
      choice = await tapped(h, () =>
        p.select({
          ...io,
          output: h.menuTap,
          message:
            current.length === 0
              ? 'Roots: no directory yet'
              : `Roots: the server may work in ${current.length === 1 ? 'this directory' : `these ${current.length} directories`}`,
          options: [
            ...current.map((r) => ({
              value: `-\u0000${r.uri}`,
              label: `Remove ${inert(pathOf(r), 100, false)}`,
            })),
            { value: '+\u0000', label: 'Add a directory' },
            { value: 'b\u0000', label: 'Back' },
          ],
        }),
      );
      if (!p.isCancel(choice) && String(choice).startsWith('+'))
        dir = await tapped(h, () =>
          p.text({
            ...io,
            output: h.menuTap,
            message: 'Directory to add',
            placeholder: process.cwd(),
            validate: (v) => notADirectory(v === undefined || v === '' ? process.cwd() : v),
          }),
        );
    } finally {
      h.ui.promptEnd();
    }
    if (p.isCancel(choice) || String(choice).startsWith('b')) return;
    if (p.isCancel(dir)) continue;
    const [action, uri = ''] = String(choice).split('\u0000');
    try {
      if (action === '+') {
        const root = rootOf(dir === undefined || dir === '' ? process.cwd() : String(dir));
        await roots.add(root);
        p.log.success(
          `Added ${inert(pathOf(root), 100, false)}; the server was told the roots changed.`,
          io,
        );
      } else if (await roots.remove(uri)) {
        p.log.success(
          `Removed ${inert(pathOf({ uri }), 100, false)}; the server was told the roots changed.`,
          io,
        );
      }
    } catch (error) {
      p.log.error(
        `The roots could not be changed: ${error instanceof ElicitError ? error.message : describeFailure(error)}`,
        io,
      );
    }
  }
}
