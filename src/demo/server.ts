/**
 * The demo server `elicit demo` starts: tools that show every kind of question elicit handles,
 * on both eras. Embedded defaults, no external service.
 */
import * as z from 'zod';
import { boolean, choice, choices, date, email, form, integer, text } from '../schema/index.ts';
import { createServer, type ElicitServer } from '../server/index.ts';

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

const FEELING = { loved: 'loved it', fine: 'found it fine', meh: 'did not like it' } as const;

export function demoServer(): ElicitServer {
  let booking = 1000;
  return createServer({
    name: 'elicit-demo',
    version: '0.1.0',
    instructions: 'A demo of MCP elicitation: try book_trip, feedback and open_docs.',
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
    );
}
