/** Sealed requestState vs the SDK's HMAC codec, in the same run. */
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { createSealer, generateKeySecret } from '../src/server/seal.ts';
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
  const rows: Row[] = [
    // A request opens its state and seals the next under one binding it makes: a new object
    // per operation, so the binding's digest is computed each time as in a request.
    single(
      'server: requestState',
      'seal + open, one request’s binding (AES-256-GCM under a per-salt HKDF key, bound)',
      () => {
        const b = { ...bind };
        return sealer.open(sealer.seal(journal, b, 2), b);
      },
      8_000,
    ),
  ];
  const codec = createRequestStateCodec<typeof journal>({
    key: new Uint8Array(32).fill(7),
    ttlSeconds: 600,
  });
  // Interleaved with the SDK's codec (ABBA, repeated); its mint and verify are async.
  const r = await abba(
    async () => {
      const b = { ...bind };
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
