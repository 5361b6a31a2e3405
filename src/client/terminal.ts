/**
 * A terminal renderer on @clack/prompts. Streams are injectable, so it runs under tests without
 * a terminal. Shows which server asks and why, every field type with defaults pre-filled and
 * errors inline, a review step, and a URL consent screen with the site highlighted and warnings
 * on top. Esc or Ctrl+C cancels anywhere; at the review and consent steps `d` declines and `c`
 * cancels. Form state lives in a FormState, shared with the other renderers.
 */
import type { Readable, Writable } from 'node:stream';
import { styleText } from 'node:util';
import * as p from '@clack/prompts';
import { applyDefaults, type CompiledSchema, type Field, formatHint } from '../schema/index.ts';
import { chooseKey } from './choose-key.ts';
import { closable } from './dismiss.ts';
import { FormState } from './form-state.ts';
import { inert } from './inert.ts';
import type {
  ClientEvent,
  FormRequest,
  FormResponse,
  Renderer,
  UrlRequest,
  UrlResponse,
} from './types.ts';

export interface TerminalOptions {
  readonly input?: Readable;
  readonly output?: Writable;
  /** Colours; default when the output is a TTY and NO_COLOR is unset. */
  readonly color?: boolean;
}

type Style = Parameters<typeof styleText>[0];

/** A tool as a host lists it, for the arguments form. */
export interface ToolInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** The word for what the arguments are for: `Call` (a tool, the default) or `Get` (a prompt). */
  readonly verb?: string;
}

export interface TerminalRenderer extends Renderer {
  /**
   * A form for a tool's arguments (the host's own question, not the server's): ends with
   * "Call <tool> with these arguments?" (or the tool's `verb`) and Call / Edit / Cancel. Undefined when cancelled.
   */
  arguments(
    tool: ToolInfo,
    schema: CompiledSchema,
  ): Promise<Readonly<Record<string, unknown>> | undefined>;
}

interface Wording {
  readonly title: string;
  readonly message: string;
  readonly note: string;
  readonly question: string;
  readonly send: string;
  readonly edit: string;
  readonly decline: boolean;
}

/** The "Leave empty" choice of optional selects and yes/no fields (no option value can equal it). */
const EMPTY: unique symbol = Symbol('leave empty');

/** Lines and characters of a server's URL-mode message shown above the address. */
const SERVER_WORDS_LINES = 8;
const SERVER_WORDS_CHARS = 600;

/**
 * A server's message, bounded and marked: blank-line runs collapsed, at most
 * SERVER_WORDS_LINES lines, every line behind a `┆ ` quote mark, and the characters the host
 * draws its own frames and symbols with (box drawing, ◆ ◇ ● ■ ▲ …) shown as `·`, so the text
 * cannot draw a second "Address" box or pass for a host prompt.
 */
function serverWords(message: string): string {
  const text = inert(message, SERVER_WORDS_CHARS)
    .replace(/[\u2500-\u25ff]/g, '·')
    .replace(/\n[ \t]*(\n[ \t]*)+/g, '\n\n')
    .trim();
  if (text === '') return '';
  const lines = text.split('\n');
  const kept = lines.slice(0, SERVER_WORDS_LINES).map((l) => `┆ ${l}`);
  if (lines.length > SERVER_WORDS_LINES)
    kept.push(`┆ … (${lines.length - SERVER_WORDS_LINES} more lines not shown)`);
  return kept.join('\n');
}

/**
 * Opens the page; when the browser cannot be opened, says so plainly with the address to copy
 * (the person consented, so the step goes on). True when the browser took the page.
 */
async function openOrSay(request: UrlRequest, output: Writable): Promise<boolean> {
  try {
    await request.open();
    return true;
  } catch (error) {
    // The reason is the opener's (its exit code), kept short; the address is what matters.
    const message = (error as Error).message;
    const why = inert(
      /^Could not open your browser \((.*?)\)\./.exec(message)?.[1] ?? message,
      200,
      false,
    );
    p.log.warn(
      `Could not open your browser. Open this address yourself:\n${inert(request.analysis.href ?? '', 2000, false)}\n(${why})`,
      { output },
    );
    return false;
  }
}

export function terminalRenderer(options: TerminalOptions = {}): TerminalRenderer {
  return new Terminal(options);
}

/** The terminal renderer: its settings in one object, its screens as methods. */
class Terminal implements TerminalRenderer {
  readonly #output: Writable;
  readonly #io: { input: Readable; output: Writable };
  readonly #color: boolean;

  constructor(options: TerminalOptions) {
    const output = options.output ?? process.stdout;
    this.#output = output;
    this.#io = { input: options.input ?? process.stdin, output };
    this.#color =
      options.color ??
      ((output as { isTTY?: boolean }).isTTY === true && process.env.NO_COLOR === undefined);
  }

  #paint(style: Style, text: string): string {
    return this.#color ? styleText(style, text, { validateStream: false }) : text;
  }

  #who(r: { server: { name: string; title?: string } }): string {
    return inert(r.server.title ?? r.server.name, 80, false);
  }

  #hint(f: Field): string {
    const parts: string[] = [];
    if (f.kind === 'text') {
      // The hint is a sentence; inside the parentheses it is one item of a list.
      if (f.format !== undefined)
        parts.push(
          formatHint(f.format)
            .replace(/^Enter /, '')
            .replace(/\.$/, ''),
        );
      if (f.minLength !== undefined || f.maxLength !== undefined)
        parts.push(`${f.minLength ?? 0}–${f.maxLength ?? '∞'} characters`);
    }
    if (f.kind === 'number') {
      parts.push(f.integer ? 'whole number' : 'number');
      if (f.minimum !== undefined || f.maximum !== undefined)
        parts.push(`${f.minimum ?? '−∞'} to ${f.maximum ?? '∞'}`);
    }
    if (f.kind === 'multiselect' && (f.minItems !== undefined || f.maxItems !== undefined)) {
      parts.push(`choose ${f.minItems ?? 0}–${f.maxItems ?? f.options.length}`);
    }
    if (!f.required) parts.push('optional');
    return parts.length === 0 ? '' : this.#paint('dim', ` (${parts.join(', ')})`);
  }

  async #ask(state: FormState, f: Field, signal?: AbortSignal): Promise<'ok' | 'cancel'> {
    const label = `${state.label(f)}${this.#hint(f)}`;
    const description =
      f.description === undefined ? '' : `\n${this.#paint('dim', inert(f.description, 500))}`;
    const message = `${label}${description}`;
    for (;;) {
      const current = state.value(f.name);
      let error: string | undefined;
      if (f.kind === 'boolean' || f.kind === 'select') {
        const options: { value: string | typeof EMPTY; label: string }[] =
          f.kind === 'boolean'
            ? [
                { value: 'yes', label: 'Yes' },
                { value: 'no', label: 'No' },
              ]
            : f.options.map((o) => ({ value: o.value, label: inert(o.label, 120, false) }));
        if (!f.required) options.push({ value: EMPTY, label: 'Leave empty' });
        const now =
          f.kind === 'boolean'
            ? current === true
              ? 'yes'
              : current === false
                ? 'no'
                : undefined
            : typeof current === 'string'
              ? current
              : undefined;
        // An optional field starts on "Leave empty" unless it has a value.
        const v = await closable(this.#io.input, signal, (signal) =>
          p.select<string | typeof EMPTY>({
            ...this.#io,
            signal,
            message,
            options,
            initialValue: now ?? (f.required ? undefined : EMPTY),
          }),
        );
        if (p.isCancel(v)) return 'cancel';
        error = v === EMPTY ? state.clear(f) : state.set(f, f.kind === 'boolean' ? v === 'yes' : v);
      } else if (f.kind === 'multiselect') {
        // Ticks that failed validation are offered again as they were.
        const v = await closable(this.#io.input, signal, (signal) =>
          p.multiselect({
            ...this.#io,
            signal,
            message,
            options: f.options.map((o) => ({ value: o.value, label: inert(o.label, 120, false) })),
            initialValues: state.ticks(f.name),
            // The form state judges the count, with the same messages as every renderer.
            required: false,
          }),
        );
        if (p.isCancel(v)) return 'cancel';
        // Nothing ticked on an optional field that had no value: it stays empty (left out).
        error =
          v.length === 0 && !f.required && current === undefined ? state.clear(f) : state.set(f, v);
      } else {
        // Only safe text is pre-filled (it is echoed as typed); anything else is shown inert, and an
        // empty answer keeps it.
        const prefill = state.text(f.name);
        const safe = inert(prefill, 10_000, false) === prefill;
        if (!safe)
          p.log.info(`Current value: ${inert(prefill, 200, false)} (leave empty to keep it)`, {
            output: this.#output,
          });
        const v = await closable(this.#io.input, signal, (signal) =>
          p.text({
            ...this.#io,
            signal,
            // Clack's text prompt does not draw the gutter on a message's later lines.
            message: message.split('\n').join(`\n${this.#paint('gray', '│')}  `),
            initialValue: safe ? prefill : '',
            validate: (text) =>
              !safe && (text ?? '') === '' ? undefined : state.enter(f, text ?? ''),
          }),
        );
        if (p.isCancel(v)) return 'cancel';
      }
      if (error === undefined) return 'ok';
      p.log.error(error, { output: this.#output });
    }
  }

  async #fill(request: FormRequest, wording: Wording, signal?: AbortSignal): Promise<FormResponse> {
    p.log.step(wording.title, { output: this.#output });
    if (wording.message !== '') p.log.message(wording.message, { output: this.#output });
    const state = new FormState(request);
    if (wording.decline) for (const c of state.cautions()) p.log.warn(c, { output: this.#output });
    for (const f of state.fields) {
      const error = state.error(f.name);
      if (error !== undefined) p.log.error(`${state.label(f)}: ${error}`, { output: this.#output });
      if ((await this.#ask(state, f, signal)) === 'cancel') return { action: 'cancel' };
    }
    for (;;) {
      const rows = state.review();
      p.note(
        rows
          .map(
            (r) => `${r.label}: ${r.value}${r.error ? this.#paint('red', `  ← ${r.error}`) : ''}`,
          )
          .join('\n'),
        wording.note,
        { output: this.#output },
      );
      const choice = await closable(this.#io.input, signal, (signal) =>
        chooseKey({
          ...this.#io,
          signal,
          message: wording.question,
          options: [
            { value: 's', label: wording.send },
            { value: 'e', label: wording.edit },
            ...(wording.decline ? [{ value: 'd', label: 'Decline' }] : []),
            { value: 'c', label: 'Cancel' },
          ],
        }),
      );
      if (p.isCancel(choice) || choice === 'c') return { action: 'cancel' };
      if (choice === 'd') return { action: 'decline' };
      if (choice === 's') {
        const result = state.submit();
        if (!result.ok) {
          p.log.error('Fix the marked fields first.', { output: this.#output });
          continue;
        }
        return { action: 'accept', content: result.content };
      }
      const name = await closable(this.#io.input, signal, (signal) =>
        p.select({
          ...this.#io,
          signal,
          message: 'Which field?',
          options: state.fields.map((f) => ({ value: f.name, label: state.label(f) })),
        }),
      );
      if (p.isCancel(name)) {
        if (signal?.aborted === true) return { action: 'cancel' };
        continue;
      }
      const field = state.field(name);
      if (field !== undefined && (await this.#ask(state, field, signal)) === 'cancel')
        return { action: 'cancel' };
    }
  }

  form(request: FormRequest, signal?: AbortSignal): Promise<FormResponse> {
    const asker = this.#who(request);
    return this.#fill(
      request,
      {
        title: `${this.#paint('bold', asker)} asks for input${request.attempt > 1 ? ` (attempt ${request.attempt})` : ''}`,
        message: inert(request.message, 2000),
        note: 'Review before sending',
        question: `Send this to ${asker}?`,
        send: 'Send',
        edit: 'Edit a field',
        decline: true,
      },
      signal,
    );
  }

  async arguments(tool: ToolInfo, schema: CompiledSchema) {
    const name = inert(tool.title ?? tool.name, 80, false);
    const verb = inert(tool.verb ?? 'Call', 20, false);
    const response = await this.#fill(
      {
        server: { name: tool.name },
        message: '',
        schema,
        issues: [],
        initial: applyDefaults(schema, {}),
        attempt: 1,
      },
      {
        title: `${this.#paint('bold', name)}: arguments`,
        message: tool.description === undefined ? '' : inert(tool.description, 2000),
        note: 'Arguments',
        question: `${verb} ${name} with these arguments?`,
        send: verb,
        edit: 'Edit an argument',
        decline: false,
      },
    );
    return response.action === 'accept' ? response.content : undefined;
  }

  async url(request: UrlRequest, signal?: AbortSignal): Promise<UrlResponse> {
    const a = request.analysis;
    // Order matters: the server's words first, bounded and marked as theirs, then the host's
    // own address box and the warnings, so nothing the server writes sits between the
    // warnings and the choice, pushes them off screen, or passes for the host's frames.
    p.log.step(
      `${this.#paint('bold', this.#who(request))} wants you to open a page in your browser`,
      {
        output: this.#output,
      },
    );
    const words = serverWords(request.message);
    if (words !== '')
      p.log.message(`${this.#paint('dim', 'In its own words:')}\n${words}`, {
        output: this.#output,
      });
    if (a.verdict === 'refused') {
      p.log.error(`Not opened: ${inert(a.refusal?.message ?? '', 300)}`, { output: this.#output });
    } else {
      const shown = a.segments
        .map((s) => {
          const text = inert(s.text, 500, false);
          return s.part === 'domain'
            ? this.#paint('inverse', text)
            : s.part === 'subdomain' || s.part === 'scheme'
              ? this.#paint('dim', text)
              : text;
        })
        .join('');
      const site = inert(a.site ?? '', 300, false);
      p.note(`${shown}\n\nSite: ${this.#paint('bold', site)}`, 'Address', { output: this.#output });
    }
    for (const w of a.warnings) {
      const line = inert(w.message, 300);
      if (w.severity === 'danger') p.log.error(this.#paint('red', line), { output: this.#output });
      else if (w.severity === 'caution') p.log.warn(line, { output: this.#output });
      else p.log.info(line, { output: this.#output });
    }
    const choice = await closable(this.#io.input, signal, (signal) =>
      chooseKey({
        ...this.#io,
        signal,
        message:
          a.verdict === 'refused' ? 'This page cannot be opened.' : 'Open it in your browser?',
        options: [
          ...(a.verdict === 'refused'
            ? []
            : [{ value: 'o', label: a.verdict === 'danger' ? 'Open anyway' : 'Open in browser' }]),
          { value: 'd', label: 'Decline' },
          { value: 'c', label: 'Cancel' },
        ],
      }),
    );
    if (p.isCancel(choice) || choice === 'c') return { action: 'cancel' };
    if (choice === 'd') return { action: 'decline' };
    const opened = await openOrSay(request, this.#output);
    if (opened)
      p.log.success(`Opened ${inert(a.site ?? '', 300, false)} in your browser.`, {
        output: this.#output,
      });
    if (!request.awaitDone) return { action: 'opened' };
    const done = await closable(this.#io.input, signal, (signal) =>
      chooseKey({
        ...this.#io,
        signal,
        message: 'Finish in the browser, then:',
        options: [
          { value: 'd', label: 'Done' },
          { value: 'c', label: 'Cancel' },
        ],
      }),
    );
    return p.isCancel(done) || done === 'c' ? { action: 'cancel' } : { action: 'opened' };
  }

  notice(event: ClientEvent) {
    const text =
      event.type === 'rate_limited'
        ? `${inert(event.server.name, 80, false)} is asking too often; a ${event.mode} request was declined without asking you.`
        : event.type === 'refused'
          ? `A request from ${inert(event.server.name, 80, false)} was refused: ${inert(event.reason, 300)}`
          : event.type === 'url_required'
            ? `${inert(event.server.name, 80, false)} needs ${event.count} step(s) in your browser first.`
            : event.type === 'url_completed'
              ? 'A browser step completed.'
              : `Retrying ${inert(event.tool, 80, false)}…`;
    p.log.info(text, { output: this.#output });
  }
}
