/**
 * Story: the tool needs the person's calendar. The client opens the connect link in the
 * person's browser (headless Chromium here), where they continue to the provider, sign in and
 * consent; the tool call then completes with what the calendar said.
 *
 *   node examples/connect/client.ts <server-url> [2025-06-18|2025-11-25|2026-07-28]
 */
import { attachElicitation } from '../../src/client/index.ts';
import { browserRenderer, launchBrowser } from '../shared/browser.ts';
import { clientOn, connectOn, run, storyArgs, textOf } from '../shared/era.ts';

run(async () => {
  const { url, era } = storyArgs();
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const client = clientOn(era, 'connect-story');
    const elicit = attachElicitation(client, {
      renderer: browserRenderer(
        page,
        async (p) => {
          await p.click('#continue'); // on to the provider
          await p.waitForSelector('input[name=login]');
          await p.fill('input[name=login]', 'ada');
          await p.fill('input[name=password]', 'any'); // the provider's development login
          await p.click('button[type=submit]');
          await p.waitForSelector('button[type=submit]');
          await p.click('button[type=submit]'); // consent
        },
        (line) => process.stderr.write(`${line}\n`),
      ),
    });
    await connectOn(client, url, era);
    const result = await elicit.callTool(
      { name: 'todays_meetings', arguments: {} },
      { timeout: 60_000 },
    );
    await client.close();
    return textOf(result);
  } finally {
    await browser.close();
  }
});
