/**
 * `elicit demo` (and `npm start`): starts the demo server on loopback with embedded defaults and
 * connects to it. On a terminal it is interactive; without one it runs a scripted tour that
 * prints each request, the consent screens and the results.
 */
import type { Readable, Writable } from 'node:stream';
import { startDemo } from '../demo/internal.ts';
import { runHost } from './host/run.ts';

export async function runDemo(options: {
  era: 'auto' | 'legacy' | 'modern';
  interactive: boolean;
  input: Readable;
  output: Writable;
}): Promise<number> {
  const server = await startDemo();
  const say = (line: string) => options.output.write(`${line}\n`);
  say(`elicit demo: the demo server is at ${server.url.href} (data in ./.elicit)`);
  if (!server.calendar)
    say('(connect_calendar needs the optional oidc-provider package; it is left out.)');
  try {
    if (options.interactive) {
      say('Pick a tool to call; press Esc to go back, and choose Quit to leave.');
      return await runHost({
        target: { url: server.url.href },
        era: options.era,
        interactive: true,
        input: options.input,
        output: options.output,
      });
    }
    say('No terminal attached: running the scripted tour.');
    return await runHost({
      target: { url: server.url.href },
      era: options.era,
      interactive: false,
      input: options.input,
      output: options.output,
      answers: [
        {
          match: 'travelling',
          action: 'accept',
          content: {
            name: 'Ada Lovelace',
            mail: 'ada@example.com',
            when: '2026-12-24',
            extras: ['wifi', 'meal'],
          },
        },
        { match: 'Half the records are copied', action: 'accept', content: { confirmed: true } },
        {
          match: 'How did you like',
          action: 'accept',
          content: { rating: 'loved', comment: 'Forms that check themselves!' },
        },
      ],
      calls: [
        { name: 'book_trip', args: { city: 'Oslo' } },
        { name: 'feedback' },
        { name: 'migrate_data' },
        { name: 'open_docs' },
        { name: 'open_docs', args: { url: 'https://аpple.com/login' } },
        { name: 'set_api_key' },
        ...(server.calendar ? [{ name: 'connect_calendar' }] : []),
      ],
    });
  } finally {
    await server.close();
  }
}
