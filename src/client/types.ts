/**
 * What a renderer sees and answers. Renderers are dumb about protocol: the pipeline has already
 * checked the request, and checks the answer after them.
 */
import type { AnswerIssue, CompiledSchema, Content } from '../schema/index.ts';
import type { UrlAnalysis } from '../url/index.ts';

/** Who is asking. `name` comes from the server's own initialize/discover info: show it, do not trust it. */
export interface ServerIdentity {
  readonly name: string;
  readonly title?: string;
  readonly version?: string;
}

export interface FormRequest {
  readonly server: ServerIdentity;
  /** Untrusted text from the server: render it inert. */
  readonly message: string;
  readonly schema: CompiledSchema;
  /** Problems with the previous attempt, to show next to the fields. */
  readonly issues: readonly AnswerIssue[];
  /** Values to start from: defaults first, then the previous attempt. */
  readonly initial: Readonly<Record<string, unknown>>;
  readonly attempt: number;
}

export type FormResponse =
  | { readonly action: 'accept'; readonly content: Readonly<Record<string, unknown>> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

export interface UrlRequest {
  readonly server: ServerIdentity;
  readonly message: string;
  readonly analysis: UrlAnalysis;
  /** 2025-11-25 only: the id the completion notification will name. */
  readonly elicitationId: string | undefined;
  /**
   * 2026-07-28: the request is retried as soon as this resolves, so after opening the renderer
   * should wait for the person to say they are done (or cancel).
   */
  readonly awaitDone: boolean;
  /** Opens the URL in the system browser; only call it after the person consented. Rejects for refused URLs. */
  open(): Promise<void>;
}

/** `opened` means the person consented and the URL was opened (or they chose to open it themselves). */
export type UrlResponse =
  | { readonly action: 'opened' }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

export type ClientEvent =
  | {
      readonly type: 'rate_limited';
      readonly server: ServerIdentity;
      readonly mode: 'form' | 'url';
    }
  | { readonly type: 'refused'; readonly server: ServerIdentity; readonly reason: string }
  | { readonly type: 'url_completed'; readonly elicitationId: string }
  | { readonly type: 'url_required'; readonly server: ServerIdentity; readonly count: number }
  | { readonly type: 'retrying'; readonly tool: string };

export interface Renderer {
  form(request: FormRequest, signal: AbortSignal): Promise<FormResponse>;
  url(request: UrlRequest, signal: AbortSignal): Promise<UrlResponse>;
  /** Things the person should know that need no answer. */
  notice?(event: ClientEvent): void;
}

export type { Content };
