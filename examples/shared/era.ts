/**
 * What every story's client shares: its arguments (`<server-url> <era>`) and connecting a plain
 * SDK client on one era. 2025-06-18 and 2025-11-25 are the legacy era (the server pushes its
 * requests); 2026-07-28 is the modern one (the server answers `input_required` and the client
 * retries).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const ERAS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type Era = (typeof ERAS)[number];

export function storyArgs(): { url: URL; era: Era } {
  const [url, era = '2025-11-25'] = process.argv.slice(2);
  if (url === undefined || !(ERAS as readonly string[]).includes(era)) {
    process.stderr.write(`usage: client.ts <server-url> [${ERAS.join('|')}]\n`);
    process.exit(2);
  }
  return { url: new URL(url), era: era as Era };
}

/** A plain SDK client that speaks exactly `era`. */
export function clientOn(era: Era, name: string): Client {
  return new Client(
    { name, version: '1.0.0' },
    era === '2025-06-18'
      ? { supportedProtocolVersions: ['2025-06-18'] }
      : { versionNegotiation: { mode: era === '2026-07-28' ? { pin: era } : 'legacy' } },
  );
}

export async function connectOn(client: Client, url: URL, era: Era): Promise<void> {
  await client.connect(new StreamableHTTPClientTransport(url));
  const spoken = client.getNegotiatedProtocolVersion();
  if (spoken !== era) throw new Error(`asked for ${era}, the server speaks ${spoken}`);
}

export const textOf = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((c) => c.text ?? '')
    .join('\n');

/** Runs a client story: its last line is the tool's answer; any failure exits non-zero. */
export function run(main: () => Promise<string>): void {
  main().then(
    (line) => {
      process.stdout.write(`${line}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
