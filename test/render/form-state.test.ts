/** FormState itself: the state every renderer drives. */
import { describe, expect, it } from 'vitest';
import { FormState } from '../../src/client/form-state.ts';
import { compileSchema, type Field } from '../../src/schema/index.ts';

const schema = compileSchema(
  JSON.parse(`{
    "type": "object",
    "properties": {
      "constructor": { "type": "string", "minLength": 2 },
      "__proto__": { "type": "array", "items": { "type": "string", "enum": ["x", "y"] }, "maxItems": 1 },
      "toString": { "type": "integer", "default": 3 },
      "hasOwnProperty": { "type": "array", "items": { "type": "string", "enum": ["a"] }, "minItems": 1 }
    },
    "required": ["constructor"]
  }`),
);
const field = (name: string) => schema.fields.find((f) => f.name === name) as Field;

describe('FormState', () => {
  it('starts from defaults only: prototype members are not values', () => {
    const s = new FormState({ schema });
    expect(s.value('constructor')).toBeUndefined();
    expect(s.text('constructor')).toBe('');
    expect(s.ticks('__proto__')).toEqual([]);
    expect(JSON.stringify(s.content())).toBe('{"toString":3}');
    expect(Object.getPrototypeOf(s.content())).toBe(Object.prototype);
  });
  it('keeps unreadable text and invalid ticks, and reports them until corrected', () => {
    const s = new FormState({ schema });
    expect(s.enter(field('toString'), 'three')).toBe('Enter a whole number, such as 42.');
    expect(s.text('toString')).toBe('three');
    expect(s.set(field('__proto__'), ['x', 'y'])).toBe('Choose at most 1.');
    expect(s.ticks('__proto__')).toEqual(['x', 'y']);
    const result = s.submit();
    expect(result.ok).toBe(false);
    expect(s.error('constructor')).toBe('This field is required.');
    expect(s.enter(field('constructor'), 'Al')).toBeUndefined();
    expect(s.enter(field('toString'), '4')).toBeUndefined();
    expect(s.set(field('__proto__'), ['y'])).toBeUndefined();
    const ok = s.submit();
    expect(ok.ok && JSON.stringify(ok.content)).toBe(
      '{"constructor":"Al","__proto__":["y"],"toString":4}',
    );
    expect(ok.ok && Object.hasOwn(ok.content, '__proto__')).toBe(true);
  });
  it('an optional multi-select with minItems and no ticks is left out; an empty required field is an error', () => {
    const s = new FormState({ schema });
    expect(s.set(field('hasOwnProperty'), [])).toBeUndefined();
    expect(Object.hasOwn(s.content(), 'hasOwnProperty')).toBe(false);
    expect(s.enter(field('constructor'), '')).toBe('This field is required.');
  });
  it('starts from a previous attempt (own properties only) and shows its issues', () => {
    const initial = JSON.parse('{"__proto__": ["x"], "constructor": "A"}');
    const s = new FormState({
      schema,
      initial,
      issues: [{ field: 'constructor', message: 'Enter at least 2 characters.' }],
    });
    expect(s.ticks('__proto__')).toEqual(['x']);
    expect(s.text('constructor')).toBe('A');
    expect(s.error('constructor')).toBe('Enter at least 2 characters.');
    // The previous attempt is the whole state: its empty field stays empty (no default comes back).
    expect(s.value('toString')).toBeUndefined();
    expect(new FormState({ schema }).value('toString')).toBe(3);
  });
});
