/**
 * The journal as sealed: empty parts are left out of the state (shorter on the wire) and put back
 * when it opens; anything that is not a journal is refused, whatever was sealed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  freshJournal,
  type Journal,
  packJournal,
  unpackJournal,
} from '../../src/server/engines/replay.ts';

const journal: fc.Arbitrary<Journal> = fc.record({
  n: fc.string({ minLength: 1, maxLength: 22 }),
  a: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
  c: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 16 }), { maxKeys: 3 }),
  s: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
  p: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
  t: fc.dictionary(fc.string({ maxLength: 8 }), fc.nat(5), { maxKeys: 3 }),
}) as fc.Arbitrary<Journal>;

describe('sealed journal', () => {
  it('round-trips through JSON with empty parts left out', () => {
    fc.assert(
      fc.property(journal, (j) => {
        const packed = JSON.parse(JSON.stringify(packJournal(j)));
        expect(unpackJournal(packed)).toEqual(JSON.parse(JSON.stringify(j)));
      }),
    );
    expect(packJournal(freshJournal())).toEqual({ n: expect.any(String) });
  });

  it('a journal sealed with every part (the earlier form) still opens', () => {
    const full = { n: 'x', a: { k: 1 }, s: {}, p: ['k'], t: {} };
    // Without `c` (sealed before it existed): no kept answer counts as checked.
    expect(unpackJournal(full)).toEqual({ ...full, c: {} });
  });

  it('refuses what is not a journal', () => {
    for (const bad of [
      null,
      'n',
      [],
      {},
      { n: 1 },
      { n: 'x', a: [] },
      { n: 'x', s: null },
      { n: 'x', p: 'k' },
      { n: 'x', p: [1] },
      { n: 'x', t: 3 },
      { n: 'x', c: [] },
      { n: 'x', c: { k: 1 } },
    ])
      expect(unpackJournal(bad), JSON.stringify(bad)).toBeUndefined();
  });
});
