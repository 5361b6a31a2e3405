/**
 * The terminal renderer with injected streams: every field type, defaults, inline errors,
 * review, decline and cancel keys, and the URL consent screen.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalRenderer } from '../../src/client/terminal.ts';
import type { FormRequest, UrlRequest } from '../../src/client/types.ts';
import { applyDefaults, compileSchema } from '../../src/schema/index.ts';
import { analyzeUrl } from '../../src/url/index.ts';

const ENTER = '\r';
const DOWN = '\u001b[B';
const SPACE = ' ';

function harness() {
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = '';
  output.on('data', (d: Buffer) => {
    screen += d.toString();
  });
  const renderer = terminalRenderer({ input, output, color: false });
  const type = async (...keys: string[]) => {
    for (const k of keys) {
      await new Promise((r) => setTimeout(r, 25));
      input.write(k);
    }
  };
  const plain = () => screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  return { renderer, type, plain };
}

function request(raw: unknown, extra: Partial<FormRequest> = {}): FormRequest {
  const schema = compileSchema(raw);
  return {
    server: { name: 'test-server' },
    message: 'Please answer',
    schema,
    issues: [],
    initial: applyDefaults(schema, {}),
    attempt: 1,
    ...extra,
  };
}

const signal = new AbortController().signal;

describe('terminal renderer: forms', () => {
  it('every field type, defaults pre-filled, then send', async () => {
    const h = harness();
    const req = request({
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name', minLength: 2 },
        age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 30 },
        ok: { type: 'boolean', title: 'Subscribe', default: true },
        seat: {
          type: 'string',
          title: 'Seat',
          oneOf: [
            { const: 'w', title: 'Window' },
            { const: 'a', title: 'Aisle' },
          ],
        },
        size: { type: 'string', title: 'Size', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
        extras: {
          type: 'array',
          title: 'Extras',
          items: {
            anyOf: [
              { const: 'wifi', title: 'Wi-Fi' },
              { const: 'meal', title: 'Meal' },
            ],
          },
          maxItems: 1,
        },
      },
      required: ['name'],
    });
    const done = h.renderer.form(req, signal);
    // name: too short first (inline error), then valid; age: keep default; ok: keep Yes; seat and
    // size are optional, so they start on "Leave empty" (last): down wraps to the first option;
    // seat: Aisle; size: Small; extras: tick the first; review: send.
    await h.type(
      ...['A', ENTER, 'da', ENTER, ENTER, ENTER],
      ...[DOWN, DOWN, ENTER, DOWN, ENTER, SPACE, ENTER, 's'],
    );
    const result = await done;
    expect(result).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 30, ok: true, seat: 'a', size: 's', extras: ['wifi'] },
    });
    const screen = h.plain();
    expect(screen).toContain('test-server asks for input');
    expect(screen).toContain('Enter at least 2 characters.');
    expect(screen).toContain('Age (whole number, 0 to 150, optional)');
    expect(screen).toContain('Seat: Aisle');
    expect(screen).toContain('Extras: Wi-Fi');
  });
  it('a form that asks for a password or an API key shows a caution first', async () => {
    const raw = {
      type: 'object',
      properties: { user: { type: 'string' }, apiKey: { type: 'string', title: 'API key' } },
    };
    const h = harness();
    const done = h.renderer.form(request(raw), signal);
    await h.type('ann', ENTER, 'k', ENTER, 'd');
    expect(await done).toEqual({ action: 'decline' });
    expect(h.plain()).toContain(
      '"API key" looks like it asks for an API key. Servers must not ask for that in a form; unless you expected it, decline.',
    );
    const plain = harness();
    const other = plain.renderer.form(
      request({ type: 'object', properties: { city: { type: 'string' } } }),
      signal,
    );
    await plain.type('x', ENTER, 'd');
    await other;
    expect(plain.plain()).not.toContain('looks like it asks for');
  });

  it('d declines and c cancels at the review; Esc cancels anywhere', async () => {
    const raw = { type: 'object', properties: { a: { type: 'string' } } };
    let h = harness();
    let done = h.renderer.form(request(raw), signal);
    await h.type('x', ENTER, 'd');
    expect(await done).toEqual({ action: 'decline' });
    h = harness();
    done = h.renderer.form(request(raw), signal);
    await h.type('x', ENTER, 'c');
    expect(await done).toEqual({ action: 'cancel' });
    h = harness();
    done = h.renderer.form(request(raw), signal);
    await h.type('\u001b');
    expect(await done).toEqual({ action: 'cancel' });
  });
  it('shows the previous attempt’s errors and hostile text inert', async () => {
    const h = harness();
    const req = request(
      { type: 'object', properties: { a: { type: 'string', title: 'A\u001b[31m\u202eevil' } } },
      {
        message: 'Hi \u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007',
        issues: [{ code: 'min_length', field: 'a', message: 'Enter at least 3 characters.' }],
      },
    );
    const done = h.renderer.form(req, signal);
    await h.type('abc', ENTER, 's');
    await done;
    const raw = h.plain();
    expect(raw).toContain('Enter at least 3 characters.');
    expect(raw).toContain('A⟨ESC[31m⟩⟨U+202E⟩evil');
    expect(raw).not.toContain('\u202e');
    expect(raw).not.toContain('\u001b]8;;');
  });
});

describe('terminal renderer: optional fields and corrections', () => {
  it('optional yes/no, select and multi-select (even with minItems) can be left empty', async () => {
    const h = harness();
    const req = request({
      type: 'object',
      properties: {
        agree: { type: 'boolean', title: 'Agree' },
        seat: { type: 'string', title: 'Seat', enum: ['w', 'a'] },
        extras: {
          type: 'array',
          title: 'Extras',
          items: { type: 'string', enum: ['wifi', 'meal'] },
          minItems: 1,
        },
      },
    });
    const done = h.renderer.form(req, signal);
    // Enter on each prompt as it first appears, then send.
    await h.type(ENTER, ENTER, ENTER, 's');
    expect(await done).toEqual({ action: 'accept', content: {} });
    expect(h.plain()).toContain('Leave empty');
  });
  it('a multi-select that fails its check comes back with the ticks as they were', async () => {
    const h = harness();
    const req = request({
      type: 'object',
      properties: {
        extras: {
          type: 'array',
          title: 'Extras',
          items: { type: 'string', enum: ['wifi', 'meal', 'seat'] },
          maxItems: 1,
        },
      },
    });
    const done = h.renderer.form(req, signal);
    // Tick wifi and meal (too many), then untick wifi only.
    await h.type(SPACE, DOWN, SPACE, ENTER, SPACE, ENTER, 's');
    expect(await done).toEqual({ action: 'accept', content: { extras: ['meal'] } });
    expect(h.plain()).toContain('Choose at most 1.');
  });
});

describe('terminal renderer: tool arguments', () => {
  it('asks "Call <tool> with these arguments?" with Call, Edit and Cancel', async () => {
    const h = harness();
    const schema = compileSchema({
      type: 'object',
      properties: { city: { type: 'string', title: 'City', default: 'Oslo' } },
    });
    const done = h.renderer.arguments({ name: 'book_trip', description: 'Book a trip' }, schema);
    await h.type(ENTER, 's');
    expect(await done).toEqual({ city: 'Oslo' });
    const screen = h.plain();
    expect(screen).toContain('Call book_trip with these arguments?');
    expect(screen).toContain('Edit an argument');
    expect(screen).not.toContain('Decline');
    expect(screen).not.toContain('Send this to');
    const h2 = harness();
    const cancelled = h2.renderer.arguments({ name: 'book_trip' }, schema);
    await h2.type(ENTER, 'c');
    expect(await cancelled).toBeUndefined();
  });
});

describe('terminal renderer: URL consent', () => {
  function url(href: string, awaitDone = false): { req: UrlRequest; opened: string[] } {
    const opened: string[] = [];
    const analysis = analyzeUrl(href);
    return {
      opened,
      req: {
        server: { name: 'test-server' },
        message: 'Sign in',
        analysis,
        elicitationId: 'e1',
        awaitDone,
        open: async () => void opened.push(analysis.href as string),
      },
    };
  }
  it('shows the site, then the warnings right above the choice; opens only on o', async () => {
    const h = harness();
    const { req, opened } = url('https://аpple.com/login');
    const done = h.renderer.url(req, signal);
    await h.type('o');
    expect(await done).toEqual({ action: 'opened' });
    expect(opened).toEqual(['https://xn--pple-43d.com/login']);
    const screen = h.plain();
    expect(screen.indexOf('Site: xn--pple-43d.com')).toBeLessThan(
      screen.indexOf('looks like apple.com'),
    );
    expect(screen.indexOf('looks like apple.com')).toBeLessThan(
      screen.indexOf('Open it in your browser?'),
    );
    expect(screen).toContain('Site: xn--pple-43d.com');
    expect(screen).toContain('Open anyway');
  });
  it("the server's words cannot push the warnings away nor draw a host frame", async () => {
    const h = harness();
    const { req } = url('https://аpple.com/login');
    const fake =
      'Hi\n\n\n\n\n◇  Address ───╮\n│  https://google.com  │\n│  Site: google.com  │\n├───╯' +
      '\n'.repeat(1999);
    const done = h.renderer.url({ ...req, message: fake }, signal);
    await h.type('c');
    expect(await done).toEqual({ action: 'cancel' });
    const screen = h.plain();
    const lines = screen.split('\n');
    const warning = lines.findIndex((l) => l.includes('looks like apple.com'));
    const choice = lines.findIndex((l) => l.includes('Open it in your browser?'));
    // The warning is a few lines above the choice, not 2 000.
    expect(choice - warning).toBeGreaterThan(0);
    expect(choice - warning).toBeLessThan(5);
    expect(lines.length).toBeLessThan(60);
    // One Address box (the host's); the server's lines are quoted and its frame characters gone.
    expect(screen.match(/◇ {2}Address/g)).toHaveLength(1);
    expect(screen.match(/Site: /g)).toHaveLength(2); // the host's, and the server's quoted line
    expect(screen).toContain('┆ Hi');
    expect(screen).toContain('┆ ·  Address');
    expect(screen).not.toMatch(/\n\s*│\s*\n\s*│\s*\n\s*│\s*\n/);
  });
  it('says plainly when the browser cannot be opened, with the address to copy', async () => {
    const h = harness();
    const { req } = url('https://example.com/signin');
    const done = h.renderer.url(
      {
        ...req,
        open: async () => {
          throw new Error(
            'Could not open your browser (xdg-open exited with code 3). Open this address yourself: https://example.com/signin',
          );
        },
      },
      signal,
    );
    await h.type('o');
    expect(await done).toEqual({ action: 'opened' });
    const screen = h.plain();
    expect(screen).toContain('Could not open your browser. Open this address yourself:');
    expect(screen).toContain('https://example.com/signin');
    expect(screen).toContain('(xdg-open exited with code 3)');
    expect(screen).not.toContain('Opened example.com');
  });
  it('refused URLs offer no open key', async () => {
    const h = harness();
    const { req, opened } = url('javascript:alert(1)');
    const done = h.renderer.url(req, signal);
    await h.type('o', 'd');
    expect(await done).toEqual({ action: 'decline' });
    expect(opened).toEqual([]);
    expect(h.plain()).toContain('Not opened:');
  });
  it('waits for "done" when the request is retried on return (2026-07-28)', async () => {
    const h = harness();
    const { req } = url('https://example.com/connect', true);
    const done = h.renderer.url(req, signal);
    await h.type('o', 'c');
    expect(await done).toEqual({ action: 'cancel' });
  });
});
