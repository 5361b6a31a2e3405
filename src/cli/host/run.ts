/**
 * `elicit host`: a terminal host for any MCP server, over HTTP or stdio, on every era. Lists
 * tools, prompts and resources (refreshed when the server says they changed), calls them with
 * arguments entered through a form built from the input schema (JSON when it is not flat),
 * shows progress, log messages and results, renders elicitations safely, cancels on Ctrl-C,
 * and reconnects when the server restarts. Scripted with --answers/--call for unattended runs.
 * The run's state is one object (state.ts); the parts live beside this file.
 */

import { identityOf, inert } from '../../client/index.ts';
import { ElicitError } from '../../errors.ts';
import { ELICIT_HOST_CALL } from '../../kernel/error-codes.ts';
import { connect, createHost } from './connection.ts';
import { Cancelled } from './errors.ts';
import { menuLoop } from './menu.ts';
import type { HostOptions } from './options.ts';
import { callTool, request } from './request.ts';
import { removeSaved, renderToolResult } from './results.ts';
import { emit, failure, type Host, out, say } from './state.ts';

export { type HostOptions, LOG_LEVELS, type LogLevel } from './options.ts';
export type { Target } from './transport.ts';

/** Runs the host until Quit (or, scripted, until the last call); the process exit code. */
export async function runHost(o: HostOptions): Promise<number> {
  const h = await createHost(o);
  const onSigint = () => interrupted(h);
  process.on('SIGINT', onSigint);
  try {
    if (!(await connect(h))) return 2;
    if (!o.interactive) return await runScripted(h);
    return await menuLoop(h);
  } catch (error) {
    h.status.set('');
    out(h, `Failed: ${failure(h, error)}`);
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
    await shutdown(h);
  }
}

/** Ctrl-C outside raw mode (scripted runs, or while connecting). */
function interrupted(h: Host): void {
  h.interrupts++;
  if (h.active !== undefined && h.interrupts < 2) {
    say(h, 'Cancelling… (Ctrl-C again quits)');
    h.active.cancel();
  } else {
    h.status.set('');
    void h.link.close().finally(() => process.exit(130));
  }
}

/** --call: the tools called in order, each result (or error) shown, and JSON lines with --format json. */
async function runScripted(h: Host): Promise<number> {
  const { o, json, lists, link } = h;
  if (json) {
    const server = identityOf(link.client);
    emit(h, {
      server: { name: server.name, version: server.version },
      protocol: link.client.getNegotiatedProtocolVersion(),
      tools: lists.tools.map((t) => ({ name: t.name, description: t.description })),
    });
  }
  for (const t of lists.tools)
    out(h, `  tool ${inert(t.name, 80, false)}: ${inert(t.description ?? '', 200, false)}`);
  let code = 0;
  for (const c of o.calls ?? []) {
    if (!lists.tools.some((t) => t.name === c.name)) {
      out(h, `No tool named ${JSON.stringify(c.name)}.`);
      if (json)
        emit(h, {
          call: c.name,
          error: { code: ELICIT_HOST_CALL, message: `No tool named ${c.name}.` },
        });
      return 2;
    }
    out(h, `\n▶ ${c.name} ${JSON.stringify(c.args ?? {})}`);
    try {
      const result = await request(h, `Calling ${c.name}`, (options) =>
        callTool(h, c.name, c.args ?? {}, options),
      );
      out(h, `◀ ${result.isError === true ? 'error: ' : ''}${renderToolResult(result, h.limits)}`);
      if (json) emit(h, { call: c.name, arguments: c.args ?? {}, result });
      if (result.isError === true) code = 1;
    } catch (error) {
      const cancelled = error instanceof Cancelled;
      if (json)
        emit(h, {
          call: c.name,
          arguments: c.args ?? {},
          error: {
            code: error instanceof ElicitError ? error.code : ELICIT_HOST_CALL,
            message: failure(h, error),
          },
        });
      if (cancelled) {
        out(h, 'Cancelled.');
        return 130;
      }
      out(h, `The call failed: ${failure(h, error)}`);
      code = 1;
    }
  }
  return code;
}

/** The end of every run: the status line and keys released, the link closed, saved files removed. */
async function shutdown(h: Host): Promise<void> {
  h.status.set('');
  h.keys.off();
  await h.link.close();
  // Images and files the server sent were saved for this session only.
  const saved = removeSaved();
  if (saved !== undefined) out(h, `Removed the files saved during this session (${saved}).`);
}
