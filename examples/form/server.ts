/**
 * Story: a tool asks one typed form. The handler gets typed content back (or the person's
 * decline / cancel) on every era, from the same code.
 *
 *   node examples/form/server.ts        (prints its MCP URL, then serves until Ctrl-C)
 */
import { choice, form, integer, text } from '../../src/schema/index.ts';
import { createServer, httpEntry, listen } from '../../src/server/index.ts';
import { serve } from '../shared/serve.ts';

const table = form({
  name: text({ title: 'Name for the booking', minLength: 1, maxLength: 80 }),
  guests: integer({ title: 'Guests', min: 1, max: 8, default: 2 }),
  time: choice({ early: '18:00', late: '20:30' }, { title: 'Time' }),
  notes: text({ title: 'Anything we should know?', maxLength: 200, optional: true }),
});

const app = createServer({ name: 'bistro', version: '1.0.0' }).tool(
  'book_table',
  { description: 'Books a table, asking who is coming and when' },
  async (_args, ask) => {
    const r = await ask.form('table', table, { message: 'Who is the table for?' });
    if (r.action !== 'accept') return `No table booked (${r.action}).`;
    const { name, guests, time, notes } = r.content;
    const at = time === 'early' ? '18:00' : '20:30';
    return `Table for ${guests} at ${at} under ${name}${notes ? ` (${notes})` : ''}.`;
  },
);

await serve(() => listen(httpEntry(app)));
