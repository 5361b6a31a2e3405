/**
 * Story: a tool reads the person's calendar at a third party. `ask.connect` sends them to sign
 * in there (OAuth with PKCE, through the connect pages); the tokens stay in the server's vault
 * and the tool calls the API as that person. A local oidc-provider plays the calendar service.
 *
 *   node examples/connect/server.ts        (prints its MCP URL, then serves until Ctrl-C)
 */
import type { ConnectApp } from '../../src/connect/index.ts';
import { startDemoIdp } from '../../src/demo/idp.ts';
import { createServer } from '../../src/server/index.ts';
import { pages, serveWithPages } from '../shared/pages.ts';
import { serve } from '../shared/serve.ts';

function assistantTools(connect: ConnectApp, calendarApi: string) {
  return createServer({
    name: 'assistant-tools',
    version: '1.0.0',
    connect: { app: connect, waitMs: 60_000 },
  }).tool('todays_meetings', { description: 'Lists today’s meetings' }, async (_a, ask) => {
    const c = await ask.connect('calendar', { label: 'your calendar' });
    if (c.action !== 'accept') return `Calendar not connected (${c.action}).`;
    // The person's own access token is added here, on the server; the client never sees it.
    const res = await c.connection.fetch(calendarApi);
    if (!res.ok) return `The calendar answered ${res.status}.`;
    const day = (await res.json()) as { owner: string; events: string[] };
    return `${day.events.length} meetings for ${day.owner}: ${day.events.join('; ')}`;
  });
}

await serve(() =>
  serveWithPages(async (base) => {
    const calendar = await startDemoIdp(`${base}/elicit/oauth/callback`);
    if (calendar === undefined) throw new Error('this story needs oidc-provider: npm install');
    const connect = pages(base, {
      calendar: {
        issuer: calendar.issuer,
        clientId: 'elicit-demo',
        clientSecret: 'demo-only-secret',
        scope: 'openid offline_access calendar.read',
        allowInsecure: true, // loopback only
      },
    });
    return { app: assistantTools(connect, calendar.api), connect, close: () => calendar.close() };
  }),
);
