/**
 * Story: a tool asks one typed form; the client answers it with a scripted renderer (a person
 * would see the terminal or <elicit-form> instead).
 *
 *   node examples/form/client.ts <server-url> [2025-06-18|2025-11-25|2026-07-28]
 */
import { attachElicitation, scriptedRenderer } from '../../src/client/index.ts';
import { clientOn, connectOn, run, storyArgs, textOf } from '../shared/era.ts';

run(async () => {
  const { url, era } = storyArgs();
  const client = clientOn(era, 'form-story');
  const elicit = attachElicitation(client, {
    renderer: scriptedRenderer({
      answers: [{ action: 'accept', content: { name: 'Ada', guests: 4, time: 'late' } }],
      log: (line) => process.stderr.write(`${line}\n`),
    }),
  });
  await connectOn(client, url, era);
  const result = await elicit.callTool({ name: 'book_table', arguments: {} });
  await client.close();
  return textOf(result);
});
