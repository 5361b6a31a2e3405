/** The schema engine's self-check, shown by `elicit demo` until the interactive demo exists. */
import type { Writable } from 'node:stream';
import { styleText } from 'node:util';
import {
  checkSchema,
  choice,
  choices,
  convertSchema,
  email,
  form,
  integer,
  text,
} from '../schema/index.ts';

export function runSelfCheck(out: Writable): number {
  let failures = 0;
  const say = (line = '') => out.write(`${line}\n`);
  const step = (ok: boolean, what: string) => {
    if (!ok) failures++;
    say(`  ${ok ? styleText('green', '✔') : styleText('red', '✘')} ${what}`);
  };

  say(styleText('bold', 'elicit: schema engine self-check'));
  const trip = form({
    name: text({ title: 'Your name', minLength: 1 }),
    mail: email({ title: 'Email' }),
    seat: choice({ w: 'Window', a: 'Aisle' }, { default: 'w' }),
    bags: integer({ min: 0, max: 3, default: 1 }),
    extras: choices({ wifi: 'Wi-Fi', meal: 'Meal' }, { maxItems: 1 }),
  });
  say();
  say('A form built with the typed builders, as sent on the wire:');
  say(JSON.stringify(trip.requestedSchema, null, 2).replace(/^/gm, '    '));
  say();
  const good = trip.parse({ name: 'Ann', mail: 'ann@example.com', extras: ['meal'] });
  step(
    good.ok,
    `valid answer accepted, defaults applied: ${JSON.stringify(good.ok ? good.value : null)}`,
  );
  const bad = trip.parse({
    name: '',
    mail: 'ann@',
    bags: 9,
    extras: ['wifi', 'meal'],
    admin: true,
  });
  step(!bad.ok, 'invalid answer refused with messages for each field:');
  if (!bad.ok) for (const i of bad.issues) say(`      ${i.field}: ${i.message}`);

  const hostile = checkSchema({
    type: 'object',
    properties: {
      address: { type: 'object', properties: {} },
      age: { type: 'integer', minimum: 10, maximum: 1 },
    },
    required: ['phone'],
  });
  step(!hostile.ok, 'a schema outside the restricted subset is refused, each problem named:');
  if (!hostile.ok) for (const e of hostile.errors) say(`      [${e.code}] ${e.message}`);

  const old = convertSchema(trip.requestedSchema, { to: '2025-06-18' });
  step(
    Object.keys(old.requestedSchema.properties).length === 6,
    'lowered for a 2025-06-18 client:',
  );
  for (const n of old.notes) say(`      ${n.message}`);
  const back = old.mapAnswer({
    name: 'Ann',
    mail: 'ann@example.com',
    seat: 'a',
    bags: 2,
    'extras.wifi': true,
  });
  step(trip.parse(back).ok, `its answer maps back: ${JSON.stringify(back)}`);
  say();
  say(
    failures === 0
      ? styleText('green', 'all good')
      : styleText('red', `${failures} check(s) failed`),
  );
  return failures === 0 ? 0 : 1;
}
