/**
 * Kept answers on 2026-07-28: every round replays the handler, and an answer an earlier round
 * took is checked once, when it came in. A replay in the same process asking the same form takes
 * it from the sealed journal as checked; another form checks it again (and re-asks when it no
 * longer fits); a refined form's answer is refined again on every replay, as before.
 */
import { describe, expect, it } from 'vitest';
import { type Form, form, integer, text } from '../../src/schema/index.ts';
import { formTag, resolveForm } from '../../src/server/forms.ts';
import { createServer } from '../../src/server/index.ts';
import { connectTo, textOf } from '../support/kit.ts';

/** `f` with its schema's check counted (a Form is read by shape: schema, requestedSchema, parse). */
function counted<T>(f: Form<T>): { form: Form<T>; checks: () => number } {
  let n = 0;
  const schema = {
    ...f.schema,
    parse: (content: unknown) => {
      n++;
      return f.schema.parse(content);
    },
  };
  return { form: { ...f, schema } as Form<T>, checks: () => n };
}

describe('kept answers across rounds (2026-07-28)', () => {
  it('each answer is checked once over three rounds, and every replay gets the same result', async () => {
    const { form: person, checks } = counted(
      form({ name: text(), age: integer({ min: 0, default: 7 }) }),
    );
    const seen: string[] = [];
    const app = createServer({ name: 'k', version: '1' }).tool('three', {}, async (_a, ask) => {
      const one = await ask.form('one', person, { message: '1' });
      seen.push(JSON.stringify(one));
      await ask.form('two', person, { message: '2' });
      return (await ask.form('three', person, { message: '3' })).action;
    });
    const { client, close } = await connectTo(app, {
      era: 'modern',
      via: 'http',
      onElicit: () => ({ action: 'accept', content: { name: 'Ann' } }),
    });
    const r = await client.callTool({ name: 'three', arguments: {} });
    expect(textOf(r)).toBe('accept');
    // Three answers, three checks (each replay checked the earlier ones again: six).
    expect(checks()).toBe(3);
    // Round two took it, rounds three and four replayed it: the same result, defaults included.
    expect(seen).toEqual(
      Array(3).fill(JSON.stringify({ action: 'accept', content: { name: 'Ann', age: 7 } })),
    );
    await close();
  });

  it('a replay asking the same key with another form checks the kept answer again', async () => {
    const loose = form({ name: text() });
    const strict = form({ name: text(), age: integer({ min: 0 }) });
    let runs = 0;
    const asked: string[] = [];
    const app = createServer({ name: 'k', version: '1' }).tool('shifty', {}, async (_a, ask) => {
      runs++;
      const one = await ask.form('one', runs <= 2 ? loose : strict, { message: 'one' });
      await ask.form('two', loose, { message: 'two' });
      return JSON.stringify(one);
    });
    const { client, close } = await connectTo(app, {
      era: 'modern',
      via: 'http',
      onElicit: (p: { message: string }) => {
        asked.push(p.message.split('\n')[0] as string);
        return {
          action: 'accept',
          content:
            p.message.startsWith('one') && asked.length > 2
              ? { name: 'Bo', age: 3 }
              : { name: 'Ann' },
        };
      },
    });
    const r = await client.callTool({ name: 'shifty', arguments: {} });
    // Round two took 'one' with the loose form; round three's replay asks it with the strict
    // one, which the kept answer does not fit: asked again, then kept.
    expect(asked.slice(0, 2)).toEqual(['one', 'two']);
    expect(asked.filter((m) => m.startsWith('one')).length).toBe(2);
    expect(JSON.parse(textOf(r))).toEqual({ action: 'accept', content: { name: 'Bo', age: 3 } });
    await close();
  });

  it('a refined form is refined again on every replay (its value is not kept)', async () => {
    let refined = 0;
    const base = form({ name: text() });
    const withRefine = {
      ...base,
      refine: (v: { name: string }) => {
        refined++;
        return { ok: true as const, value: { name: v.name.toUpperCase() } };
      },
    } as unknown as Form<{ name: string }>;
    const app = createServer({ name: 'k', version: '1' }).tool('two', {}, async (_a, ask) => {
      const one = await ask.form('one', withRefine, { message: '1' });
      await ask.form('two', base, { message: '2' });
      return one.action === 'accept' ? one.content.name : one.action;
    });
    const { client, close } = await connectTo(app, {
      era: 'modern',
      via: 'http',
      onElicit: () => ({ action: 'accept', content: { name: 'ann' } }),
    });
    expect(textOf(await client.callTool({ name: 'two', arguments: {} }))).toBe('ANN');
    expect(refined).toBe(2);
    await close();
  });

  it('a form tag names one resolved form in this process', () => {
    const a = resolveForm(form({ name: text() }));
    const b = resolveForm(form({ name: text() }));
    expect(formTag(a)).toBe(formTag(a));
    expect(formTag(a)).not.toBe(formTag(b));
  });
});
