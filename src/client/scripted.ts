/**
 * A renderer that answers from a script or a policy: for tests, CI and agents. It writes what
 * a person would have seen to `log`, so a non-interactive run still shows every request. Answers
 * go through a FormState, as a person's would in the other renderers.
 */
import type { Field } from '../schema/index.ts';
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

export type ScriptedPolicy = 'accept-defaults' | 'decline' | 'cancel';

export interface ScriptedAnswer {
  /** Answer only a request whose message contains this text. */
  readonly match?: string;
  readonly action: 'accept' | 'decline' | 'cancel';
  /** Entered on top of the form's defaults; `null` clears a field. */
  readonly content?: Record<string, unknown>;
}

export interface ScriptedOptions {
  /** Consumed in order (the first one that matches). */
  readonly answers?: readonly ScriptedAnswer[];
  /** For requests no answer matches; default `accept-defaults`. */
  readonly policy?: ScriptedPolicy;
  /** URL requests: open them (`open`, after showing the consent screen) or `decline`. Default decline. */
  readonly urls?: 'open' | 'decline';
  readonly log?: (line: string) => void;
}

/** Server text folded to one line: runs of white space (newlines too) become one space. */
const oneLine = (text: string) => text.slice(0, 8000).replace(/\s+/g, ' ');

/**
 * A URL request as lines of text. The server's message is one bounded line (its newlines
 * folded), so it cannot push the address, the site and the warnings away from the end, which is
 * where a reader's decision is made.
 */
export function describeUrl(request: UrlRequest): string[] {
  const a = request.analysis;
  const lines = [
    `${inert(request.server.title ?? request.server.name, 80, false)} wants you to open a page: ${inert(oneLine(request.message), 300, false)}`,
  ];
  if (a.verdict === 'refused')
    lines.push(`  refused: ${inert(a.refusal?.message ?? '', 500, false)}`);
  else
    lines.push(
      `  ${a.segments.map((s) => (s.part === 'domain' ? `[${inert(s.text, 500, false)}]` : inert(s.text, 500, false))).join('')}`,
      `  site: ${inert(a.site ?? '', 300, false)}`,
    );
  for (const w of a.warnings) lines.push(`  [${w.severity}] ${inert(w.message, 500, false)}`);
  return lines;
}

export function describeForm(request: FormRequest): string[] {
  const lines = [
    `${inert(request.server.title ?? request.server.name, 80, false)} asks: ${inert(request.message, 500)}`,
  ];
  for (const f of request.schema.fields) {
    const issue = request.issues.find((i) => i.field === f.name);
    lines.push(
      `  - ${inert(f.title ?? f.name, 80, false)} (${f.kind}${f.required ? ', required' : ''})${issue ? `: ${issue.message}` : ''}`,
    );
  }
  return lines;
}

function enter(
  state: FormState,
  content: Readonly<Record<string, unknown>>,
  log: (line: string) => void,
): void {
  for (const name of Object.keys(content)) {
    const f = state.field(name);
    if (f === undefined)
      log(`  (no field named ${inert(JSON.stringify(name), 80, false)}: ignored)`);
    // `null` clears the field (JSON has no undefined), as a person emptying it would.
    else state.set(f, content[name] === null ? undefined : content[name]);
  }
}

export function scriptedRenderer(options: ScriptedOptions = {}): Renderer {
  const queue = [...(options.answers ?? [])];
  const log = options.log ?? (() => {});
  const next = (message: string): ScriptedAnswer | undefined => {
    const i = queue.findIndex((a) => a.match === undefined || message.includes(a.match));
    return i === -1 ? undefined : queue.splice(i, 1)[0];
  };
  return {
    async form(request): Promise<FormResponse> {
      for (const line of describeForm(request)) log(line);
      let scripted = next(request.message);
      const action =
        scripted?.action ??
        (options.policy === 'decline'
          ? 'decline'
          : options.policy === 'cancel'
            ? 'cancel'
            : 'accept');
      if (action !== 'accept') {
        log(`  → ${action}`);
        return { action };
      }
      // The content is entered into the form as a person would: on top of the defaults and the
      // previous attempt; while it has problems, the next matching answer corrects it.
      const state = new FormState(request);
      while (scripted?.content !== undefined) {
        enter(state, scripted.content, log);
        const problems = state.problems();
        if (problems.length === 0) break;
        for (const p of problems)
          log(
            `  ✗ ${p.field === undefined ? '' : `${state.label(state.field(p.field) as Field)}: `}${p.message}`,
          );
        const correction = next(request.message);
        if (correction === undefined) break;
        if (correction.action !== 'accept') {
          log(`  → ${correction.action}`);
          return { action: correction.action };
        }
        scripted = correction;
      }
      const content = state.content();
      log(`  → accept ${JSON.stringify(content)}`);
      return { action: 'accept', content };
    },
    async url(request): Promise<UrlResponse> {
      for (const line of describeUrl(request)) log(line);
      const scripted = next(request.message);
      const wantsOpen = scripted ? scripted.action === 'accept' : options.urls === 'open';
      if (!wantsOpen || request.analysis.verdict === 'refused') {
        const action = scripted?.action === 'cancel' ? 'cancel' : 'decline';
        log(`  → ${action}`);
        return { action };
      }
      await request.open();
      log(`  → opened ${inert(request.analysis.href ?? '', 10_000, false)}`);
      return { action: 'opened' };
    },
    notice(event: ClientEvent) {
      log(
        `  (${event.type}${'server' in event ? ` from ${inert(event.server.name, 80, false)}` : ''})`,
      );
    },
  };
}
