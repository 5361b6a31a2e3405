/** Sealed requestState vs the SDK's HMAC codec, in the same run. */

import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { createSealer, generateKeySecret, RequestBinding } from '../src/server/seal.ts';
import { abba, type Row, single } from './harness.ts';

export default async function run(): Promise<Row[]> {
  const sealer = createSealer({
    keyring: { keys: [{ id: 'k1', secret: generateKeySecret() }] },
    audience: 'https://mcp.example.com/mcp',
  });
  const bind = {
    principal: 'iss|alice',
    method: 'tools/call',
    name: 'book',
    args: { city: 'Oslo' },
  };
  const journal = {
    n: 'Yk3v0b8mQ1t2Zr5xP9wA_g',
    a: { trip: { action: 'accept', content: { name: 'Ann', seat: 'w', bags: 1 } } },
    s: { booked: 'BK-1234' },
  };
  const request = () => new RequestBinding(bind.principal, bind.method, bind.name, bind.args);
  const body = Buffer.from(JSON.stringify({ p: journal, r: 2, x: Date.now() }));
  const rows: Row[] = [
    // A request opens its state and seals the next under the one binding its gate makes: a new
    // one per operation, so the arguments' digest and additional data are built each time.
    single(
      'server: requestState',
      'seal + open, one request’s binding (AES-256-GCM under a per-salt HKDF key, bound)',
      () => {
        const b = request();
        return sealer.open(sealer.seal(journal, b, 2), b);
      },
      8_000,
    ),
    // The floor under any AES-GCM state sealed with node:crypto: a cipher and a decipher object
    // per state, over a body of the same size, nothing else.
    single(
      'server: requestState',
      'node:crypto floor: createCipheriv + createDecipheriv (AES-256-GCM) of the same body',
      () => gcmRoundTrip(body),
    ),
  ];
  const codec = createRequestStateCodec<typeof journal>({
    key: new Uint8Array(32).fill(7),
    ttlSeconds: 600,
  });
  // Interleaved with the SDK's codec (ABBA, repeated); its mint and verify are async.
  const r = await abba(
    async () => {
      const b = request();
      return sealer.open(sealer.seal(journal, b, 2), b);
    },
    async () => codec.verify(await codec.mint(journal), undefined as never),
  );
  rows.push({
    group: 'server: requestState',
    name: 'seal + open vs SDK createRequestStateCodec mint + verify (HMAC, unbound)',
    value: r.ours.ms * 1e6,
    unit: 'ns/op',
    baseline: { name: 'SDK codec', value: r.baseline.ms * 1e6 },
    ratio: r.ratio,
    range: [r.ratios[0] as number, r.ratios[r.ratios.length - 1] as number],
    cpu: { ours: r.ours.cpuUs, baseline: r.baseline.cpuUs },
    target: '≤ 1.00× SDK time',
    met: r.ratio <= 1,
  });
  rows.push({
    group: 'server: requestState',
    name: 'sealed size of a 3-step journal with small answers',
    value: sealer.seal({ ...journal, k: ['trip', 'pay', 'confirm'] }, bind, 3).length,
    unit: 'B',
    target: '≤ 600 B',
    met: sealer.seal({ ...journal, k: ['trip', 'pay', 'confirm'] }, bind, 3).length <= 600,
  });
  return rows;
}

const floorKey = createSecretKey(randomBytes(32));
const floorIv = randomBytes(12);
const floorAad = Buffer.alloc(96, 1);

function gcmRoundTrip(body: Buffer): Buffer {
  const c = createCipheriv('aes-256-gcm', floorKey, floorIv, { authTagLength: 16 });
  c.setAAD(floorAad);
  const sealed = c.update(body);
  c.final();
  const d = createDecipheriv('aes-256-gcm', floorKey, floorIv, { authTagLength: 16 });
  d.setAAD(floorAad);
  d.setAuthTag(c.getAuthTag());
  const plain = d.update(sealed);
  d.final();
  return plain;
}
