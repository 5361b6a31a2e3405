/**
 * One tool, written once, run on both eras through the real SDK client: legacy over an
 * in-memory session, modern through createMcpHandler in-process.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { choice, form, integer, text } from '../../src/schema/index.ts';
import { createServer } from '../../src/server/index.ts';
import { connectTo } from '../support/kit.ts';

const trip = form({
  name: text({ minLength: 1 }),
  seat: choice({ w: 'Window', a: 'Aisle' }),
  bags: integer({ min: 0, max: 3, default: 1 }),
});
let booked = 0;

function app() {
  return createServer({ name: 'test', version: '1.0.0' })
    .tool(
      'book',
      { description: 'Book a trip', inputSchema: z.object({ city: z.string() }) },
      async ({ city }, ask) => {
        const t = await ask.form('trip', trip, { message: `Trip to ${city}?` });
        if (t.action !== 'accept') return `no booking (${t.action})`;
        const ref = await ask.step('book', () => `BK-${++booked}`);
        const ok = await ask.form('confirm', form({ ok: choice(['yes', 'no']) }), {
          message: `Confirm ${ref} for ${t.content.name}?`,
        });
        if (ok.action !== 'accept' || ok.content.ok !== 'yes') return `not confirmed ${ref}`;
        return `booked ${ref}: ${t.content.name}, seat ${t.content.seat}, ${t.content.bags} bag(s), ${city}`;
      },
    )
    .tool('login', { description: 'Asks for a password in a form' }, async (_args, ask) => {
      const r = await ask.form('login', form({ user: text(), userPassword: text() }));
      return r.action;
    })
    .tool('pay', { description: 'A yes/no question' }, async (_args, ask) =>
      (await ask.confirm('pay', 'Pay 40 EUR to Ann?', { label: 'Pay now' })) ? 'paid' : 'not paid',
    )
    .tool('sleeve', { description: 'A field that only looks sensitive' }, async (_args, ask) => {
      const r = await ask.form(
        'sleeve',
        form({ pinColour: text({ title: 'PIN sleeve colour' }) }),
        {
          allowSensitive: ['pinColour'],
        },
      );
      return r.action === 'accept' ? `sleeve ${String(r.content.pinColour)}` : r.action;
    });
}

type Answer = (req: {
  message: string;
  requestedSchema: { properties: Record<string, unknown> };
}) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

const answers: Answer = (req) => {
  if ('ok' in req.requestedSchema.properties) return { action: 'accept', content: { ok: 'yes' } };
  return { action: 'accept', content: { name: 'Ann', seat: 'a' } };
};

/** A plain SDK client on `era`, answering with `answer` and noting each message in `seen`. */
async function on(era: 'legacy' | 'modern', answer: Answer, seen: string[] = []) {
  const onElicit = (params: Parameters<Answer>[0]) => {
    seen.push(params.message);
    return answer(params);
  };
  return (await connectTo(app(), { era, onElicit })).client;
}
const legacy = (answer: Answer, seen?: string[]) => on('legacy', answer, seen);
const modern = (answer: Answer, seen?: string[]) => on('modern', answer, seen);

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

describe.each([
  ['legacy', legacy],
  ['modern', modern],
] as const)('one handler on the %s era', (era, connect) => {
  it('asks, journals the step, asks again and completes', async () => {
    const seen: string[] = [];
    const c = await connect(answers, seen);
    open.push(c);
    expect(c.getProtocolEra()).toBe(era);
    const before = booked;
    const result = await c.callTool({ name: 'book', arguments: { city: 'Oslo' } });
    const text = (result.content as { text: string }[])[0]?.text;
    expect(text).toBe(`booked BK-${before + 1}: Ann, seat a, 1 bag(s), Oslo`);
    expect(booked).toBe(before + 1); // the step ran once, even though modern replays the handler
    expect(seen).toEqual(['Trip to Oslo?', `Confirm BK-${before + 1} for Ann?`]);
  });

  it('refuses a form that asks for a password, and sends one whose look-alike field is allowed', async () => {
    const seen: string[] = [];
    const c = await connect(() => ({ action: 'accept', content: { pinColour: 'red' } }), seen);
    open.push(c);
    const refused = await c.callTool({ name: 'login', arguments: {} });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]?.text).toContain(
      'field "userPassword" looks like it asks for a password',
    );
    expect(seen).toEqual([]); // nothing reached the client
    const sent = await c.callTool({ name: 'sleeve', arguments: {} });
    expect((sent.content as { text: string }[])[0]?.text).toBe('sleeve red');
  });

  it('ask.confirm sends one yes/no field and is true only for an accepted yes', async () => {
    const schemas: unknown[] = [];
    const reply = (action: 'accept' | 'decline', confirmed?: boolean) =>
      connect((req) => {
        schemas.push(req.requestedSchema);
        return action === 'accept' ? { action, content: { confirmed } } : { action };
      });
    const call = async (c: Client) => {
      open.push(c);
      const r = await c.callTool({ name: 'pay', arguments: {} });
      return (r.content as { text: string }[])[0]?.text;
    };
    expect(await call(await reply('accept', true))).toBe('paid');
    expect(await call(await reply('accept', false))).toBe('not paid');
    expect(await call(await reply('decline'))).toBe('not paid');
    expect(schemas[0]).toMatchObject({
      type: 'object',
      properties: { confirmed: { type: 'boolean', title: 'Pay now' } },
      required: ['confirmed'],
    });
  });

  it('decline and cancel are results', async () => {
    const c = await connect(() => ({ action: 'decline' }));
    open.push(c);
    const result = await c.callTool({ name: 'book', arguments: { city: 'Oslo' } });
    expect((result.content as { text: string }[])[0]?.text).toBe('no booking (decline)');
  });

  it('re-asks with the reasons when an answer is invalid, then gives up clearly', async () => {
    const seen: string[] = [];
    let n = 0;
    const c = await connect((req) => {
      if ('ok' in req.requestedSchema.properties)
        return { action: 'accept', content: { ok: 'yes' } };
      n++;
      return n === 1
        ? { action: 'accept', content: { name: '', seat: 'x', admin: true } }
        : { action: 'accept', content: { name: 'Bo', seat: 'w', bags: 2 } };
    }, seen);
    open.push(c);
    const result = await c.callTool({ name: 'book', arguments: { city: 'Rome' } });
    expect((result.content as { text: string }[])[0]?.text).toMatch(
      /^booked BK-\d+: Bo, seat w, 2 bag\(s\), Rome$/,
    );
    expect(seen[1]).toContain('The previous answer could not be used:');
    expect(seen[1]).toContain('- name: Enter at least 1 character.');
    expect(seen[1]).toContain('- seat: Choose one of: Window, Aisle.');
    expect(seen[1]).toContain('- admin: This field is not part of the form.');

    // The re-ask keeps what was valid as defaults, so the person does not start again.
    const schemas: { properties: Record<string, { default?: unknown }> }[] = [];
    let m = 0;
    const keeps = await connect((req) => {
      if ('ok' in req.requestedSchema.properties)
        return { action: 'accept', content: { ok: 'yes' } };
      schemas.push(req.requestedSchema as (typeof schemas)[number]);
      return ++m === 1
        ? { action: 'accept', content: { name: 'Cy', seat: 'x', bags: 2 } }
        : { action: 'accept', content: { name: 'Cy', seat: 'a', bags: 2 } };
    });
    open.push(keeps);
    await keeps.callTool({ name: 'book', arguments: { city: 'Rome' } });
    expect(schemas[0]?.properties.name?.default).toBeUndefined();
    expect(schemas[1]?.properties.name?.default).toBe('Cy');
    expect(schemas[1]?.properties.bags?.default).toBe(2);
    expect(schemas[1]?.properties.seat?.default).toBeUndefined();

    const stubborn = await connect(() => ({ action: 'accept', content: { name: '' } }));
    open.push(stubborn);
    const failed = await stubborn.callTool({ name: 'book', arguments: { city: 'Rome' } });
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0]?.text).toMatch(
      /^The answer to "trip" was still invalid after 3 attempts/,
    );
  });
});
