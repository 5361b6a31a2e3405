/** listen(): failures to listen are named errors, never an uncaught EADDRINUSE. */
import { describe, expect, it } from 'vitest';
import { createServer, httpEntry, ListenError, listen } from '../../src/server/index.ts';

const app = () => createServer({ name: 'listen-test', version: '1.0.0' });

describe('listen()', () => {
  it('a busy port rejects with ELICIT_LISTEN_PORT_IN_USE naming the address, and the entry can listen elsewhere', async () => {
    const first = await listen(httpEntry(app()));
    const port = Number(first.url.port);
    const entry = httpEntry(app());
    try {
      const failure = await listen(entry, { port }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ListenError);
      expect(failure).toMatchObject({ code: 'ELICIT_LISTEN_PORT_IN_USE' });
      expect((failure as Error).message).toContain(`127.0.0.1:${port} is already in use`);
      const second = await listen(entry);
      expect(second.url.port).not.toBe(String(port));
      await second.close();
    } finally {
      await first.close();
    }
  });

  it('an address that is not this machine rejects with ELICIT_LISTEN_ADDRESS', async () => {
    // 192.0.2.0/24 is TEST-NET-1: never assigned to a local interface.
    // Nothing is sent there: binding fails before any traffic.
    const shared = createServer({
      name: 'listen-test',
      version: '1.0.0',
      principal: 'shared-local',
    });
    await expect(listen(httpEntry(shared), { host: '192.0.2.1' })).rejects.toMatchObject({
      code: 'ELICIT_LISTEN_ADDRESS',
    });
  });
});
