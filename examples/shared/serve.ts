/**
 * How every story's server runs: on 127.0.0.1, a free port, its MCP URL as the first line of
 * stdout (so a client or a test can find it), until SIGTERM or SIGINT.
 */
export async function serve(
  start: () => Promise<{ url: URL; close(): Promise<void> }>,
): Promise<void> {
  const server = await start();
  process.stdout.write(`${server.url.href}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
