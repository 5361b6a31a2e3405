/**
 * ask.once is single-use per conversation: not per state string (a sibling state minted from an
 * earlier one shares the markers), not per replica (replicas share the store), and a store that
 * cannot keep a marker refuses the step instead of forgetting one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { form, text } from '../../src/schema/index.ts';
import {
  createServer,
  type ElicitServerOptions,
  type ElicitWarning,
  generateKeySecret,
  httpEntry,
  OnceStoreFullError,
} from '../../src/server/index.ts';
import { memoryStore, redisStore, type Store, sqliteStore } from '../../src/store/index.ts';
import { onceStoreFrom } from '../../src/store/once.ts';
import { answer, callTool } from '../support/mrtr.ts';

const keyring = { keys: [{ id: 'shared', secret: generateKeySecret() }] };
const dir = mkdtempSync(join(tmpdir(), 'elicit-once-'));
const opened: Store[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

/** A payment tool: confirm, charge once, then ask for a rating. `charges` counts side effects. */
function payments(options: Partial<ElicitServerOptions> = {}) {
  const charges: string[] = [];
  const app = createServer({
    name: 'pay',
    version: '1',
    keyring,
    onWarning: () => {},
    ...options,
  }).tool('pay', {}, async (_a, ask) => {
    const ok = await ask.form('confirm', form({ ok: text({ minLength: 2 }) }));
    if (ok.action !== 'accept') return 'cancelled';
    const receipt = await ask.once('charge', () => {
      charges.push('charged');
      return `R-${charges.length}`;
    });
    await ask.form('rate', form({ stars: text() }));
    return `paid ${receipt}`;
  });
  return { entry: httpEntry(app), charges };
}

const VALID = answer('confirm', { ok: 'yes' });
const INVALID = answer('confirm', { ok: 'y' });

describe('ask.once', () => {
  it('a sibling state minted from an earlier one does not run the step again', async () => {
    const { entry, charges } = payments();
    const s1 = (await callTool(entry, 'pay')).result?.requestState as string;
    // An invalid answer re-asks: a new state string for the same conversation.
    const retry = await callTool(entry, 'pay', { requestState: s1, inputResponses: INVALID });
    const s1b = retry.result?.requestState as string;
    expect(s1b).toMatch(/./);
    expect(s1b).not.toBe(s1);
    expect(
      (await callTool(entry, 'pay', { requestState: s1b, inputResponses: VALID })).result
        ?.resultType,
    ).toBe('input_required');
    // Now the earlier state, with a valid answer: the charge must not run twice.
    const replay = await callTool(entry, 'pay', { requestState: s1, inputResponses: VALID });
    expect(replay.result?.isError).toBe(true);
    expect(replay.result?._meta?.['elicit/error']).toBe('ELICIT_REPLAYED');
    expect(charges).toHaveLength(1);
  });

  it('two replicas sharing a keyring and a store run the step once', async () => {
    const prefix = `elicit-once-${process.pid}-${Date.now()}:`;
    const stores = [
      await redisStore({ url: 'redis://127.0.0.1:6379', prefix }),
      await redisStore({ url: 'redis://127.0.0.1:6379', prefix }),
    ];
    opened.push(...stores);
    const a = payments({ store: stores[0] });
    const b = payments({ store: stores[1] });
    const s1 = (await callTool(a.entry, 'pay')).result?.requestState as string;
    const onA = await callTool(a.entry, 'pay', { requestState: s1, inputResponses: VALID });
    expect(onA.result?.resultType).toBe('input_required');
    const onB = await callTool(b.entry, 'pay', { requestState: s1, inputResponses: VALID });
    expect(onB.result?._meta?.['elicit/error']).toBe('ELICIT_REPLAYED');
    expect(a.charges.length + b.charges.length).toBe(1);
  });

  it('the URL-mode store is the default, and process-local markers with a shared keyring warn', () => {
    const warnings: ElicitWarning[] = [];
    createServer({ name: 'w', version: '1', keyring, onWarning: (w) => warnings.push(w) });
    expect(warnings.map((w) => w.code)).toEqual(['ELICIT_ONCE_PROCESS_LOCAL']);
    expect(warnings[0]?.message).toMatch(/store/);
    warnings.length = 0;
    createServer({ name: 'w', version: '1', keyring, onWarning: (w) => warnings.push(w) });
    createServer({
      name: 'w',
      version: '1',
      keyring,
      store: memoryStore(),
      onWarning: (w) => warnings.push(w),
    });
    expect(warnings).toHaveLength(2);
    warnings.length = 0;
    // Without a keyring states die with the process, and so do markers: nothing to say.
    createServer({ name: 'w', version: '1', onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
  });

  it('a full memory store refuses instead of forgetting a live marker', async () => {
    const once = onceStoreFrom(memoryStore({ maxEntries: 2 }));
    expect(await once.consume('a', 60_000)).toBe(true);
    expect(await once.consume('b', 60_000)).toBe(true);
    await expect(once.consume('c', 60_000)).rejects.toBeInstanceOf(OnceStoreFullError);
    expect(await once.consume('a', 60_000)).toBe(false);

    // Through the server: the step is refused with a clear code and never runs.
    const { entry, charges } = payments({ store: memoryStore({ maxEntries: 1 }) });
    const first = (await callTool(entry, 'pay')).result?.requestState as string;
    const second = (await callTool(entry, 'pay')).result?.requestState as string;
    await callTool(entry, 'pay', { requestState: first, inputResponses: VALID });
    const full = await callTool(entry, 'pay', { requestState: second, inputResponses: VALID });
    expect(full.result?._meta?.['elicit/error']).toBe('ELICIT_ONCE_STORE_FULL');
    expect(charges).toHaveLength(1);
    const replay = await callTool(entry, 'pay', { requestState: first, inputResponses: VALID });
    expect(replay.result?._meta?.['elicit/error']).toBe('ELICIT_REPLAYED');
    expect(charges).toHaveLength(1);
  });

  it('an unavailable store refuses the step', async () => {
    const store = await sqliteStore({ path: join(dir, 'gone.db') });
    const { entry, charges } = payments({ store });
    const s1 = (await callTool(entry, 'pay')).result?.requestState as string;
    await store.close();
    const r = await callTool(entry, 'pay', { requestState: s1, inputResponses: VALID });
    // The server's trouble, not the tool's answer: a wire error with the code, no driver text.
    expect(r.error?.code).toBe(-32603);
    expect(r.error?.data).toEqual({ code: 'ELICIT_ONCE_STORE_UNAVAILABLE' });
    expect(r.error?.message).toMatch(/was not run/);
    expect(r.error?.message).not.toMatch(/database|sqlite|closed/i);
    expect(charges).toEqual([]);
  });
});
