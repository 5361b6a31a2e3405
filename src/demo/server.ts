/**
 * The demo server `elicit demo` starts: tools that show every kind of question elicit handles,
 * on both eras. Embedded defaults, no external service.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { ElicitError } from '../errors.ts';
import { ELICIT_NOT_CONNECTED } from '../kernel/error-codes.ts';
import { boolean, choice, choices, date, email, form, integer, text } from '../schema/index.ts';
import {
  type ConnectSettings,
  createServer,
  type ElicitServer,
  type Keyring,
} from '../server/index.ts';

const traveller = form({
  name: text({ title: 'Full name', minLength: 1, maxLength: 80 }),
  mail: email({ title: 'Email for the ticket' }),
  when: date({ title: 'Travel date' }),
  seat: choice(
    { window: 'Window', aisle: 'Aisle', middle: 'Middle' },
    { title: 'Seat', default: 'window' },
  ),
  bags: integer({ title: 'Checked bags', min: 0, max: 3, default: 1 }),
  extras: choices(
    { wifi: 'Wi-Fi', meal: 'Meal', lounge: 'Lounge access' },
    { title: 'Extras', maxItems: 2, optional: true },
  ),
  insurance: boolean({ title: 'Travel insurance', default: false }),
});

const COUNT_TO = 20;
const CHUNKS = 6;
const PACE = { relaxed: 'Relaxed', packed: 'Packed' } as const;

const FEELING = { loved: 'loved it', fine: 'found it fine', meh: 'did not like it' } as const;

export interface DemoOptions {
  readonly keyring?: Keyring;
  /** The connect pages: enables set_api_key, and connect_calendar when calendarApi is set. */
  readonly connect?: ConnectSettings;
  readonly calendarApi?: string;
}

export function demoServer(options: DemoOptions = {}): ElicitServer {
  let booking = 1000;
  const app = createServer({
    name: 'elicit-demo',
    version: '0.1.0',
    instructions:
      'A demo of MCP elicitation: try book_trip, feedback, open_docs, connect_calendar and set_api_key; slow_count reports progress and can be cancelled; migrate_data runs as a task and asks half way; the trip_brief prompt asks before it answers.',
    ...(options.keyring === undefined ? {} : { keyring: options.keyring }),
    ...(options.connect === undefined ? {} : { connect: options.connect }),
  })
    .tool(
      'book_trip',
      {
        title: 'Book a trip',
        description: 'Books a (pretend) trip, asking for the traveller details.',
        inputSchema: z.object({ city: z.string().describe('Where to') }),
      },
      async ({ city }, ask) => {
        const t = await ask.form('traveller', traveller, {
          message: `Who is travelling to ${city}?`,
        });
        if (t.action !== 'accept') return `No booking made (${t.action}).`;
        const ref = await ask.step('reserve', () => `BK-${++booking}`);
        const c = t.content;
        const extras = c.extras?.length ? `, extras: ${c.extras.join(', ')}` : '';
        return `Booked ${ref}: ${c.name} to ${city} on ${c.when}, ${c.seat} seat, ${c.bags} bag(s)${extras}${c.insurance ? ', insured' : ''}. Ticket goes to ${c.mail}.`;
      },
    )
    .tool(
      'feedback',
      { title: 'Give feedback', description: 'Asks how the demo went.' },
      async (_args, ask) => {
        const r = await ask.form(
          'feedback',
          form({
            // Number-like keys would be reordered by JavaScript objects: use words.
            rating: choice(
              { loved: 'Loved it', fine: 'It was fine', meh: 'Not for me' },
              { title: 'How was it?' },
            ),
            comment: text({ title: 'Anything else?', maxLength: 500, optional: true }),
          }),
          { message: 'How did you like elicit?' },
        );
        return r.action === 'accept'
          ? `Thanks! You ${FEELING[r.content.rating]}${r.content.comment ? `: “${r.content.comment}”` : ''}.`
          : `No feedback (${r.action}).`;
      },
    )
    .tool(
      'open_docs',
      {
        title: 'Open a page',
        description:
          'Asks you to open a page in your browser (URL mode), to show the consent screen.',
        inputSchema: z.object({ url: z.string().optional() }),
      },
      async ({ url }, ask) => {
        const r = await ask.url('docs', {
          message: 'The documentation explains how elicitation works.',
          url: url ?? 'https://modelcontextprotocol.io/specification',
        });
        return r.action === 'accept' ? 'You opened the page.' : `Not opened (${r.action}).`;
      },
    )
    .tool(
      'slow_count',
      {
        title: 'Count slowly',
        description: `Counts to ${COUNT_TO}, a step every half second, reporting progress; cancel it from the host.`,
      },
      async (_args, ask, ctx) => {
        for (let step = 1; step <= COUNT_TO; step++) {
          await sleep(500, undefined, { signal: ctx.mcpReq.signal });
          await ask.progress(step, { total: COUNT_TO, message: `${step}…` });
        }
        return `Counted to ${COUNT_TO}.`;
      },
    )
    .tool(
      'migrate_data',
      {
        title: 'Migrate records (a task)',
        description: `Copies ${CHUNKS} chunks of (pretend) records, reporting progress, and asks before switching over half way. A task when the host supports tasks: it runs in the background and survives a server restart.`,
        task: 'optional',
      },
      async (_args, ask, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        const report = (chunk: number, message: string) =>
          token === undefined
            ? undefined
            : ctx.mcpReq.notify({
                method: 'notifications/progress',
                params: { progressToken: token, progress: chunk, total: CHUNKS, message },
              });
        for (let chunk = 1; chunk <= CHUNKS; chunk++) {
          // Each chunk is a step: a task resumed after a restart goes on where it stopped.
          await ask.step(`chunk-${chunk}`, async () => {
            await sleep(300, undefined, { signal: ctx.mcpReq.signal });
            return chunk;
          });
          await report(chunk, `Copied chunk ${chunk} of ${CHUNKS}`);
          if (chunk === CHUNKS / 2) {
            const go = await ask.confirm(
              'switch_over',
              `Half the records are copied. Point the application at the new database now?`,
              { label: 'Switch over' },
            );
            if (!go) return `Stopped after ${chunk} of ${CHUNKS} chunks; nothing was switched.`;
          }
        }
        return `Copied ${CHUNKS} chunks and switched over to the new database.`;
      },
    )
    .prompt(
      'trip_brief',
      {
        title: 'Brief for a trip',
        description: 'A brief for an assistant planning a day out; asks how you like to travel.',
        argsSchema: z.object({ city: z.string().describe('Where to') }),
      },
      async ({ city }, ask) => {
        const r = await ask.form('pace', form({ pace: choice(PACE, { title: 'Pace' }) }), {
          message: `How do you like to spend a day in ${city}?`,
        });
        const pace =
          r.action === 'accept' ? `at a ${PACE[r.content.pace].toLowerCase()} pace` : 'at any pace';
        return {
          messages: [
            {
              role: 'user',
              content: { type: 'text', text: `Plan a day in ${city} ${pace}.` },
            },
          ],
        };
      },
    );
  if (options.connect !== undefined) {
    app.tool(
      'set_api_key',
      {
        title: 'Set an API key',
        description:
          'Asks for an API key on the server’s secure page (never through the assistant).',
      },
      async (_args, ask) => {
        const r = await ask.secret('weather_api_key', {
          label: 'Weather API key',
          description: 'Any text will do in the demo.',
          fresh: true,
        });
        // Nothing of the key reaches the model, not even its length or last characters.
        return r.action === 'accept'
          ? 'Saved your API key on the server.'
          : `No key saved (${r.action}).`;
      },
    );
  }
  const api = options.calendarApi;
  if (options.connect !== undefined && api !== undefined) {
    app.tool(
      'connect_calendar',
      {
        title: 'Read my calendar',
        description: 'Connects your (pretend) calendar with OAuth and lists today’s meetings.',
      },
      async (_args, ask) => {
        let c = await ask.connect('calendar', { label: 'your calendar' });
        if (c.action !== 'accept') return `Calendar not connected (${c.action}).`;
        let res: Response;
        try {
          res = await c.connection.fetch(api);
        } catch (error) {
          // The stored connection stopped working and was removed: ask to connect again.
          if (!(error instanceof ElicitError) || error.code !== ELICIT_NOT_CONNECTED) throw error;
          c = await ask.connect('calendar', {
            label: 'your calendar',
            message: 'Your calendar connection stopped working. Connect it again to go on.',
          });
          if (c.action !== 'accept') return `Calendar not connected (${c.action}).`;
          res = await c.connection.fetch(api);
        }
        if (!res.ok) return `The calendar answered ${res.status}.`;
        const body = (await res.json()) as { owner: string; events: string[] };
        return `Today for ${body.owner}: ${body.events.join('; ')}.`;
      },
    );
  }
  return app;
}
