/**
 * Story: one tool call, four questions in a row, answered by a scripted renderer matched on
 * each question's message.
 *
 *   node examples/multi-round/client.ts <server-url> [2025-06-18|2025-11-25|2026-07-28]
 */
import { attachElicitation, scriptedRenderer } from '../../src/client/index.ts';
import { clientOn, connectOn, run, storyArgs, textOf } from '../shared/era.ts';

run(async () => {
  const { url, era } = storyArgs();
  const client = clientOn(era, 'multi-round-story');
  const elicit = attachElicitation(client, {
    renderer: scriptedRenderer({
      answers: [
        { match: 'Who is going', action: 'accept', content: { name: 'Grace' } },
        { match: 'When does', action: 'accept', content: { day: '2027-03-14', nights: 3 } },
        { match: 'Seat for', action: 'accept', content: { seat: 'w' } },
        { match: 'Book HOLD', action: 'accept', content: { book: 'yes' } },
      ],
      log: (line) => process.stderr.write(`${line}\n`),
    }),
  });
  await connectOn(client, url, era);
  const result = await elicit.callTool({ name: 'plan_trip', arguments: { city: 'Lisbon' } });
  await client.close();
  return textOf(result);
});
