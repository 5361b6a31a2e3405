/**
 * Story: one tool, several asks. The handler reads top to bottom; `ask.step` runs a side effect
 * once per call even where the modern era replays the handler on each round.
 *
 *   node examples/multi-round/server.ts        (prints its MCP URL, then serves until Ctrl-C)
 */
import * as z from 'zod';
import { choice, date, form, integer, text } from '../../src/schema/index.ts';
import { createServer, httpEntry, listen } from '../../src/server/index.ts';
import { serve } from '../shared/serve.ts';

const bookIt = form({ book: choice({ yes: 'Book it', no: 'Not now' }) });
let holds = 0; // every reservation this process made: one per call, whatever the era

const app = createServer({ name: 'travel-desk', version: '1.0.0' }).tool(
  'plan_trip',
  {
    description: 'Plans a trip: who, when, a held seat, then confirmation',
    inputSchema: z.object({ city: z.string() }),
  },
  async ({ city }, ask) => {
    const who = await ask.form('traveller', form({ name: text({ title: 'Traveller' }) }), {
      message: `Who is going to ${city}?`,
    });
    if (who.action !== 'accept') return `No trip (${who.action}).`;
    const when = await ask.form(
      'when',
      form({ day: date({ title: 'Day' }), nights: integer({ title: 'Nights', min: 1, max: 14 }) }),
      { message: `When does ${who.content.name} leave?` },
    );
    if (when.action !== 'accept') return `No trip (${when.action}).`;
    // Runs once; on later rounds its journaled result comes back instead.
    const hold = await ask.step('hold', () => `HOLD-${++holds}`);
    const seat = await ask.form('seat', form({ seat: choice({ w: 'Window', a: 'Aisle' }) }), {
      message: `Seat for ${hold}?`,
    });
    if (seat.action !== 'accept') return `Released ${hold} (${seat.action}).`;
    const sure = await ask.form('confirm', bookIt, {
      message: `Book ${hold}: ${city}, ${when.content.day}?`,
    });
    if (sure.action !== 'accept' || sure.content.book !== 'yes') return `Released ${hold}.`;
    return `Booked ${hold} for ${who.content.name}: ${city}, ${when.content.day}, ${when.content.nights} night(s), ${seat.content.seat === 'w' ? 'window' : 'aisle'} seat; ${holds} hold(s) made.`;
  },
);

await serve(() => listen(httpEntry(app)));
