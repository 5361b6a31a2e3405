/**
 * Lowering for a 2025-06-18 peer never produces a form that peer would refuse: it either fits
 * the limits the peer checks, or fails before sending with ConversionError naming the field.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  type ConversionError,
  checkSchema,
  choices,
  convertSchema,
  form,
  text,
} from '../../src/schema/index.ts';
import { createServer } from '../../src/server/index.ts';

const OLD = '2025-06-18';

function many(n: number, prefix = 'o'): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `Option ${i}`]));
}

function failure(fn: () => unknown): ConversionError {
  try {
    fn();
  } catch (error) {
    return error as ConversionError;
  }
  throw new Error('expected a ConversionError');
}

describe('lowering within the peer’s limits', () => {
  it('a multi-select expanded past maxProperties fails, naming the field and the limit', () => {
    const tags = form({ note: text(), tags: choices(many(120)) });
    // Fine for a modern peer: one field of 120 options.
    expect(convertSchema(tags.requestedSchema, { to: '2025-11-25' }).identity).toBe(true);
    const error = failure(() => convertSchema(tags.requestedSchema, { to: OLD }));
    expect(error.code).toBe('ELICIT_CONVERSION_LIMIT');
    expect(error.field).toBe('tags');
    expect(error.limit).toBe('maxProperties');
    expect(error.message).toMatch(/"tags".*121 properties.*limit is 100/);
    // Exactly at the limit still lowers, and the peer's check accepts it.
    const fits = convertSchema(form({ note: text(), tags: choices(many(99)) }).requestedSchema, {
      to: OLD,
    });
    expect(checkSchema(fits.requestedSchema, { revision: OLD }).ok).toBe(true);
  });

  it('long option values get index names instead of names past maxKeyLength', () => {
    const long = 'v'.repeat(250);
    const schema = form({ colors: choices({ [long]: 'Long', red: 'Red' }) }).requestedSchema;
    const lowered = convertSchema(schema, { to: OLD });
    expect(Object.keys(lowered.requestedSchema.properties)).toEqual(['colors.0', 'colors.red']);
    expect(checkSchema(lowered.requestedSchema, { revision: OLD }).ok).toBe(true);
    expect(lowered.mapAnswer({ 'colors.0': true, 'colors.red': false })).toEqual({
      colors: [long],
    });
  });

  it('a field name too long for any generated name fails with maxKeyLength', () => {
    const name = 'f'.repeat(255);
    const schema = {
      type: 'object',
      properties: { [name]: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
    };
    const error = failure(() => convertSchema(schema, { to: OLD }));
    expect(error.field).toBe(name);
    expect(error.limit).toBe('maxKeyLength');
  });

  it('titles that grow past maxTextLength fail, named by the original field', () => {
    const label = 'L'.repeat(3000);
    const schema = form({
      pick: choices({ a: label, b: 'B' }, { title: 'T'.repeat(2000) }),
    }).requestedSchema;
    const error = failure(() => convertSchema(schema, { to: OLD }));
    expect(error.field).toBe('pick');
    expect(error.limit).toBe('maxTextLength');
  });

  it('a 2025-06-18 session gets a clear tool error and no elicitation is sent', async () => {
    const app = createServer({ name: 'old', version: '1' }).tool('tags', {}, async (_a, ask) => {
      const r = await ask.form('x', form({ tags: choices(many(150)) }));
      return r.action;
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await app.build('legacy').connect(st);
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: {} }, supportedProtocolVersions: [OLD] },
    );
    let sent = 0;
    client.setRequestHandler('elicitation/create', async () => {
      sent++;
      return { action: 'decline' };
    });
    await client.connect(ct);
    const result = (await client.callTool({ name: 'tags', arguments: {} })) as {
      isError?: boolean;
      content: { text: string }[];
      _meta?: Record<string, unknown>;
    };
    expect(result.isError).toBe(true);
    expect(result._meta?.['elicit/error']).toBe('ELICIT_CONVERSION_LIMIT');
    expect(result.content[0]?.text).toMatch(/2025-06-18 client: field "tags"/);
    expect(sent).toBe(0);
    await client.close();
  });
});
