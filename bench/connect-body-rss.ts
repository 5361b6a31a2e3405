/**
 * Process memory while a large POST reaches the connect pages: `node bench/connect-body-rss.ts
 * [megabytes]` (default 300) streams generated chunks to an unauthenticated sign-in POST on a
 * loopback server in this process and prints the status, how much the sender produced, and the
 * peak RSS growth. Reported, never asserted (test/connect/limits.test.ts asserts the cap).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createConnectApp } from '../src/connect/app.ts';
import { memoryBus } from '../src/connect/completion.ts';
import { devLogin } from '../src/connect/login.ts';
import { UrlRecords } from '../src/connect/records.ts';
import { createVault } from '../src/connect/vault.ts';
import { generateKeySecret } from '../src/server/seal.ts';
import { memoryStore } from '../src/store/index.ts';

const megabytes = Number(process.argv[2] ?? 300);
const store = memoryStore();
const server = createServer();
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const app = createConnectApp({
  baseUrl: base,
  store,
  records: new UrlRecords(store),
  vault: createVault(store, { keys: [{ id: 'v', secret: generateKeySecret() }] }),
  bus: memoryBus(),
  login: devLogin(),
  providers: {},
});
server.on(
  'request',
  getRequestListener((req, env) => app.fetch(req, env)),
);

const before = process.memoryUsage().rss;
let peak = before;
const sample = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);
let pulled = 0;
const total = megabytes * 1024 * 1024;
const chunk = new Uint8Array(64 * 1024).fill(0x61);
const body = new ReadableStream<Uint8Array>({
  pull(controller) {
    if (pulled >= total) return controller.close();
    pulled += chunk.byteLength;
    controller.enqueue(chunk);
  },
});
let outcome: string;
try {
  const res = await fetch(`${base}/elicit/login`, {
    method: 'POST',
    body,
    duplex: 'half',
    headers: {
      origin: base,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/x-www-form-urlencoded',
    },
  } as RequestInit);
  await res.text();
  outcome = `status ${res.status}`;
} catch (error) {
  outcome = `error ${(error as Error).message}`;
}
clearInterval(sample);
peak = Math.max(peak, process.memoryUsage().rss);
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
console.log(
  `${megabytes} MB POST: ${outcome}, sender produced ${mb(pulled)} MB, peak RSS growth ${mb(peak - before)} MB`,
);
server.close();
