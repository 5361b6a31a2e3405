/**
 * Story: a tool needs an API key. `ask.secret` sends the person to the server's own page (URL
 * mode); the key goes from the browser to the server, never through the MCP client or the model.
 *
 *   node examples/secret/server.ts        (prints its MCP URL, then serves until Ctrl-C)
 */
import type { ConnectApp } from '../../src/connect/index.ts';
import { createServer } from '../../src/server/index.ts';
import { pages, serveWithPages } from '../shared/pages.ts';
import { serve } from '../shared/serve.ts';

function weather(connect: ConnectApp) {
  return createServer({
    name: 'weather',
    version: '1.0.0',
    connect: { app: connect, waitMs: 60_000 },
  }).tool('set_weather_key', { description: 'Stores your weather API key' }, async (_a, ask) => {
    const key = await ask.secret('weather_api_key', {
      label: 'Weather API key',
      description: 'From your weather service account page.',
      fresh: true,
    });
    // The key is here, on the server; the reply tells the model nothing of it.
    return key.action === 'accept'
      ? `Weather key saved (${key.value.startsWith('wx-') ? 'looks right' : 'unusual format'}).`
      : `No key saved (${key.action}).`;
  });
}

await serve(() =>
  serveWithPages(async (base) => {
    const connect = pages(base);
    return { app: weather(connect), connect };
  }),
);
