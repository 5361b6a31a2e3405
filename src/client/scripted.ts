/**
 * A renderer that answers from a script or a policy: for tests, CI and agents. It writes what
 * a person would have seen to `log`, so a non-interactive run still shows every request.
 */
import { applyDefaults } from '../schema/index.ts';
import { inert } from './inert.ts';
import type {
  ClientEvent,
  FormRequest,
  FormResponse,
  Renderer,
  UrlRequest,
  UrlResponse,
} from './types.ts';

export type Policy = 'accept-defaults' | 'decline' | 'cancel';

export interface ScriptedAnswer {
  /** Answer only a request whose message contains this text. */
  readonly match?: string;
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, unknown>;
}

export interface ScriptedOptions {
  /** Consumed in order (the first one that matches). */
  readonly answers?: readonly ScriptedAnswer[];
  /** For requests no answer matches; default `accept-defaults`. */
  readonly policy?: Policy;
  /** URL requests: open them (`open`, after showing the consent screen) or `decline`. Default decline. */
  readonly urls?: 'open' | 'decline';
  readonly log?: (line: string) => void;
}

export function describeUrl(request: UrlRequest): string[] {
  const a = request.analysis;
  const lines = [
    `${inert(request.server.title ?? request.server.name, 80, false)} wants you to open a page: ${inert(request.message, 500)}`,
  ];
  for (const w of a.warnings) lines.push(`  [${w.severity}] ${w.message}`);
  if (a.verdict === 'refused') lines.push(`  refused: ${a.refusal?.message ?? ''}`);
  else
    lines.push(
      `  ${a.segments.map((s) => (s.part === 'domain' ? `[${s.text}]` : s.text)).join('')}`,
      `  site: ${a.site}`,
    );
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
      const scripted = next(request.message);
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
      const content = scripted?.content ?? applyDefaults(request.schema, request.initial);
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
      log(`  → opened ${request.analysis.href}`);
      return { action: 'opened' };
    },
    notice(event: ClientEvent) {
      log(
        `  (${event.type}${'server' in event ? ` from ${inert(event.server.name, 80, false)}` : ''})`,
      );
    },
  };
}
