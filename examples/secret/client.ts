/**
 * Story: the server asks for an API key on its own page. The client shows the link (a consent
 * screen in a real host), and the person's browser, here headless Chromium, types the key.
 *
 *   node examples/secret/client.ts <server-url> [2025-06-18|2025-11-25|2026-07-28]
 */
import { attachElicitation } from '../../src/client/index.ts';
import { browserRenderer, launchBrowser } from '../shared/browser.ts';
import { clientOn, connectOn, run, storyArgs, textOf } from '../shared/era.ts';

run(async () => {
  const { url, era } = storyArgs();
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const client = clientOn(era, 'secret-story');
    const elicit = attachElicitation(client, {
      renderer: browserRenderer(
        page,
        async (p) => {
          await p.fill('#secret', 'wx-0123456789abcdef');
          await p.click('form[action$="/secret"] button[type=submit]');
        },
        (line) => process.stderr.write(`${line}\n`),
      ),
    });
    await connectOn(client, url, era);
    const result = await elicit.callTool(
      { name: 'set_weather_key', arguments: {} },
      { timeout: 60_000 },
    );
    await client.close();
    return textOf(result);
  } finally {
    await browser.close();
  }
});
