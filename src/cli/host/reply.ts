/** Sampling in `elicit host`: the person reads the server's request and writes the reply. */

import * as p from '@clack/prompts';
import { identityOf, inert } from '../../client/index.ts';
import { chooseKey, closable } from '../../client/internal.ts';
import type { Host } from './state.ts';

/** A server asks for a model's reply (sampling): the person reads the request and writes it. */
export async function writeReply(
  h: Host,
  view: { lines: readonly string[] },
  signal: AbortSignal,
): Promise<string | undefined> {
  const io = h.io;
  h.ui.promptStart();
  try {
    const server = identityOf(h.link.client);
    p.log.step(
      `${inert(server.title ?? server.name, 80, false)} asks for a model's reply (sampling); you write it`,
      io,
    );
    p.log.message(view.lines.map((l) => `┆ ${l}`).join('\n'), io);
    const choice = await closable(io.input, signal, (signal) =>
      chooseKey({
        ...io,
        signal,
        message: 'Reply to it?',
        options: [
          { value: 'w', label: 'Write the reply' },
          { value: 'd', label: 'Decline' },
        ],
      }),
    );
    if (p.isCancel(choice) || choice !== 'w') return undefined;
    const text = await closable(io.input, signal, (signal) =>
      p.text({ ...io, signal, message: 'Your reply (sent as the model’s answer)' }),
    );
    return p.isCancel(text) ? undefined : (text ?? '');
  } finally {
    h.ui.promptEnd();
  }
}
