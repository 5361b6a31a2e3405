/**
 * Composite keys from peer-chosen parts are injective: distinct tuples of parts (of any length,
 * holding any characters, separators and escapes included) never give the same key. Checked on
 * the encoding itself and on every key elicit builds with it: principals, vault entry names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordEntryName, vaultEntryName } from '../../src/connect/vault.ts';
import { joinKey, tokenPrincipal } from '../../src/kernel/keys.ts';

// Parts rich in what breaks naive joins: separators, quotes, escapes, NUL, lone surrogates.
const part = fc.oneof(
  fc.string({ unit: fc.constantFrom('|', ':', '/', '"', '\\', ',', '[', ']', '\u0000', 'a', 'b') }),
  fc.string({ unit: 'binary' }),
  fc.string(),
);
const tuple = fc.array(part, { maxLength: 4 });

describe('joinKey', () => {
  it('never maps two distinct tuples to the same key', () => {
    fc.assert(
      fc.property(tuple, tuple, (a, b) => {
        const same = a.length === b.length && a.every((x, i) => x === b[i]);
        expect(joinKey(...a) === joinKey(...b)).toBe(same);
      }),
      { numRuns: 5000 },
    );
  });

  it('decodes back to its parts (so it is injective by construction)', () => {
    fc.assert(
      fc.property(tuple, (parts) => {
        expect(JSON.parse(joinKey(...parts))).toEqual(
          parts.map((p) => JSON.parse(JSON.stringify(p))),
        );
      }),
    );
  });
});

describe('keys built from it', () => {
  it('the issue’s example: a separator in the issuer or the subject names two principals', () => {
    expect(tokenPrincipal('https://a.example', 'tenant|bob')).not.toBe(
      tokenPrincipal('https://a.example|tenant', 'bob'),
    );
    expect(tokenPrincipal('', 'bob')).not.toBe(tokenPrincipal('bob', ''));
    expect(tokenPrincipal('a","b', 'c')).not.toBe(tokenPrincipal('a', 'b","c'));
  });

  it('principals of distinct (issuer, subject) pairs never collide', () => {
    fc.assert(
      fc.property(part, part, part, part, (i1, s1, i2, s2) => {
        const same = i1 === i2 && s1 === s2;
        expect(tokenPrincipal(i1, s1) === tokenPrincipal(i2, s2)).toBe(same);
      }),
      { numRuns: 5000 },
    );
  });

  it('vault entry names: a provider, a secret and a record can never share an entry', () => {
    const names = fc.oneof(
      fc.tuple(fc.constant('connect' as const), part),
      fc.tuple(fc.constant('secret' as const), part),
      fc.tuple(fc.constant('record' as const), part),
    );
    const nameOf = ([kind, subject]: readonly [string, string]) =>
      kind === 'record' ? recordEntryName(subject) : vaultEntryName(kind as never, subject);
    fc.assert(
      fc.property(names, names, (a, b) => {
        const same = a[0] === b[0] && a[1] === b[1];
        expect(nameOf(a) === nameOf(b)).toBe(same);
      }),
      { numRuns: 5000 },
    );
    // What used to collide: a provider named like a secret's entry.
    expect(vaultEntryName('connect', 'secret:api_key')).not.toBe(
      vaultEntryName('secret', 'api_key'),
    );
  });
});
