/** Serves an elicit server over stdio; the client's opening message picks the era. */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ElicitServer } from './app.ts';

export function stdio(app: ElicitServer): { close(): Promise<void> } {
  return serveStdio(({ era }) => app.build(era), { legacy: 'serve' });
}
