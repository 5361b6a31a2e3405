/**
 * A terminal renderer on @clack/prompts. Streams are injectable, so it runs under tests without
 * a terminal. Shows which server asks and why, every field type with defaults pre-filled and
 * errors inline, a review step, and a URL consent screen with the site highlighted and warnings
 * on top. Esc or Ctrl+C cancels anywhere; at the review and consent steps `d` declines and `c`
 * cancels.
 */
import type { Readable, Writable } from 'node:stream';
import { styleText } from 'node:util';
import * as p from '@clack/prompts';
import type { Field } from '../schema/index.ts';
import { formatHint } from '../schema/index.ts';
import { inert } from './inert.ts';
import { FormSession } from './session.ts';
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

export function terminalRenderer(options: TerminalOptions = {}): Renderer {
  const output = options.output ?? process.stdout;
  const io = { input: options.input ?? process.stdin, output };
  const color =
    options.color ??
    ((output as { isTTY?: boolean }).isTTY === true && process.env.NO_COLOR === undefined);
  const paint = (style: Style, text: string) =>
    color ? styleText(style, text, { validateStream: false }) : text;
  const who = (r: { server: { name: string; title?: string } }) =>
    inert(r.server.title ?? r.server.name, 80, false);

  function hint(f: Field): string {
    const parts: string[] = [];
    if (f.kind === 'text') {
      if (f.format !== undefined) parts.push(formatHint(f.format).replace(/^Enter /, ''));
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
    return parts.length === 0 ? '' : paint('dim', ` (${parts.join(', ')})`);
  }

  async function ask(session: FormSession, f: Field): Promise<'ok' | 'cancel'> {
    const label = `${session.label(f)}${hint(f)}`;
    const description =
      f.description === undefined ? '' : `\n${paint('dim', inert(f.description, 500))}`;
    const message = `${label}${description}`;
    const current = session.value(f.name);
    for (;;) {
      let error: string | undefined;
      if (f.kind === 'boolean') {
        const v = await p.select({
          ...io,
          message,
          options: [
            { value: 'yes', label: 'Yes' },
            { value: 'no', label: 'No' },
            ...(f.required ? [] : [{ value: 'skip', label: 'Leave empty' }]),
          ],
          initialValue: current === true ? 'yes' : current === false ? 'no' : undefined,
        });
        if (p.isCancel(v)) return 'cancel';
        error = v === 'skip' ? session.enter(f, '') : session.set(f, v === 'yes');
      } else if (f.kind === 'select') {
        const v = await p.select({
          ...io,
          message,
          options: f.options.map((o) => ({ value: o.value, label: inert(o.label, 120, false) })),
          initialValue: typeof current === 'string' ? current : undefined,
        });
        if (p.isCancel(v)) return 'cancel';
        error = session.set(f, v);
      } else if (f.kind === 'multiselect') {
        const v = await p.multiselect({
          ...io,
          message,
          options: f.options.map((o) => ({ value: o.value, label: inert(o.label, 120, false) })),
          initialValues: Array.isArray(current) ? (current as string[]) : [],
          required: (f.minItems ?? 0) > 0,
        });
        if (p.isCancel(v)) return 'cancel';
        error = session.set(f, v);
      } else {
        // Only safe text is pre-filled (it is echoed as typed); anything else is shown inert, and an
        // empty answer keeps the default.
        const prefill = current === undefined ? '' : String(current);
        const safe = inert(prefill, 10_000, false) === prefill;
        if (!safe)
          p.log.info(`Current value: ${inert(prefill, 200, false)} (leave empty to keep it)`, {
            output,
          });
        const v = await p.text({
          ...io,
          message,
          initialValue: safe ? prefill : '',
          validate: (text) => session.enter(f, text ?? ''),
        });
        if (p.isCancel(v)) return 'cancel';
      }
      if (error === undefined) return 'ok';
      p.log.error(error, { output });
    }
  }

  return {
    async form(request: FormRequest): Promise<FormResponse> {
      p.log.step(
        `${paint('bold', who(request))} asks for input${request.attempt > 1 ? ` (attempt ${request.attempt})` : ''}`,
        { output },
      );
      p.log.message(inert(request.message, 2000), { output });
      const session = new FormSession(request);
      for (const f of session.fields) {
        const error = session.error(f.name);
        if (error !== undefined) p.log.error(`${session.label(f)}: ${error}`, { output });
        if ((await ask(session, f)) === 'cancel') return { action: 'cancel' };
      }
      for (;;) {
        const rows = session.review();
        p.note(
          rows
            .map((r) => `${r.label}: ${r.value}${r.error ? paint('red', `  ← ${r.error}`) : ''}`)
            .join('\n'),
          'Review before sending',
          { output },
        );
        const choice = await p.selectKey({
          ...io,
          message: `Send this to ${who(request)}?`,
          options: [
            { value: 's', label: 'Send' },
            { value: 'e', label: 'Edit a field' },
            { value: 'd', label: 'Decline' },
            { value: 'c', label: 'Cancel' },
          ],
        });
        if (p.isCancel(choice) || choice === 'c') return { action: 'cancel' };
        if (choice === 'd') return { action: 'decline' };
        if (choice === 's') {
          if (rows.some((r) => r.error !== undefined)) {
            p.log.error('Fix the marked fields first.', { output });
            continue;
          }
          return session.accept();
        }
        const name = await p.select({
          ...io,
          message: 'Which field?',
          options: session.fields.map((f) => ({ value: f.name, label: session.label(f) })),
        });
        if (p.isCancel(name)) continue;
        const field = session.fields.find((f) => f.name === name);
        if (field !== undefined && (await ask(session, field)) === 'cancel')
          return { action: 'cancel' };
      }
    },

    async url(request: UrlRequest): Promise<UrlResponse> {
      const a = request.analysis;
      for (const w of a.warnings) {
        const line = inert(w.message, 300);
        if (w.severity === 'danger') p.log.error(paint('red', line), { output });
        else if (w.severity === 'caution') p.log.warn(line, { output });
        else p.log.info(line, { output });
      }
      p.log.step(`${paint('bold', who(request))} wants you to open a page in your browser`, {
        output,
      });
      p.log.message(inert(request.message, 2000), { output });
      if (a.verdict === 'refused') {
        p.log.error(`Not opened: ${a.refusal?.message ?? ''}`, { output });
      } else {
        const shown = a.segments
          .map((s) =>
            s.part === 'domain'
              ? paint('inverse', s.text)
              : s.part === 'subdomain' || s.part === 'scheme'
                ? paint('dim', s.text)
                : s.text,
          )
          .join('');
        p.note(`${shown}\n\nSite: ${paint('bold', a.site ?? '')}`, 'Address', { output });
      }
      const choice = await p.selectKey({
        ...io,
        message:
          a.verdict === 'refused' ? 'This page cannot be opened.' : 'Open it in your browser?',
        options: [
          ...(a.verdict === 'refused'
            ? []
            : [{ value: 'o', label: a.verdict === 'danger' ? 'Open anyway' : 'Open in browser' }]),
          { value: 'd', label: 'Decline' },
          { value: 'c', label: 'Cancel' },
        ],
      });
      if (p.isCancel(choice) || choice === 'c') return { action: 'cancel' };
      if (choice === 'd') return { action: 'decline' };
      await request.open();
      p.log.success(`Opened ${a.site} in your browser.`, { output });
      if (!request.awaitDone) return { action: 'opened' };
      const done = await p.selectKey({
        ...io,
        message: 'Finish in the browser, then:',
        options: [
          { value: 'd', label: 'Done' },
          { value: 'c', label: 'Cancel' },
        ],
      });
      return p.isCancel(done) || done === 'c' ? { action: 'cancel' } : { action: 'opened' };
    },

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
      p.log.info(text, { output });
    },
  };
}
