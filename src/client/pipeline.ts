/**
 * The client-side elicitation pipeline, the same on every era:
 * rate limit → check the request → renderer (the form starts from the schema's defaults, shown
 * in its review) → validate the answer (re-ask with field errors) → result. The answer is sent
 * as the renderer returned it, which is what the person reviewed: a field they cleared stays
 * cleared, and no default is added after the review. No SDK imports: the SDK adapter (attach.ts) and a browser host use
 * the same pipeline.
 */

import { ElicitError, InternalError } from '../errors.ts';
import { ELICIT_ELICITATION_REFUSED } from '../kernel/error-codes.ts';
import { eraOf, schemaRevisionOf } from '../kernel/revision.ts';
import {
  type AnswerIssue,
  applyDefaults,
  type CompiledSchema,
  compileSchema,
  type Limits,
  SchemaError,
} from '../schema/index.ts';
import { type AnalyzeOptions, analyzeUrl } from '../url/index.ts';
import { DEFAULT_RATE_LIMIT, type RateLimit, TokenBuckets } from './rate-limit.ts';
import type { Renderer, ServerIdentity, UrlResponse } from './types.ts';

/**
 * A request this client will not show: answered with JSON-RPC `rpcCode` (-32602). attach.ts
 * turns it into the SDK's ProtocolError; a host driving the pipeline itself does the same.
 */
export class ElicitationRefused extends ElicitError {
  readonly rpcCode = -32602;
  constructor(message: string) {
    super(ELICIT_ELICITATION_REFUSED, message);
  }
}

export interface PipelineOptions {
  readonly renderer: Renderer;
  /** Modes this client declares; default both. */
  readonly modes?: { readonly form?: boolean; readonly url?: boolean };
  /** Per-server token bucket; `false` turns it off. Default 10 at once, 30 per minute. */
  readonly rateLimit?: RateLimit | false;
  /** Schema caps (elicit/schema DEFAULT_LIMITS by default). */
  readonly limits?: Partial<Limits>;
  /** Attempts at a valid answer before the request is cancelled; default 3. */
  readonly maxAttempts?: number;
  /**
   * Start forms from the schema's defaults (the renderer shows them, and they are sent only if
   * the person keeps them); default true. Nothing is filled in after the renderer returns.
   */
  readonly applyDefaults?: boolean;
  /** Opens a URL the person consented to (the CLI passes the system browser). */
  readonly openUrl?: (href: string) => Promise<void>;
  readonly url?: AnalyzeOptions;
}

export interface RequestContext {
  readonly server: ServerIdentity;
  /** Protocol revision of the connection. */
  readonly revision: string;
  readonly signal: AbortSignal;
}

export type ElicitOutcome =
  | { action: 'accept'; content?: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel' };

export interface Pipeline {
  handle(params: unknown, context: RequestContext): Promise<ElicitOutcome>;
  readonly modes: { readonly form: boolean; readonly url: boolean };
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const modes = { form: options.modes?.form ?? true, url: options.modes?.url ?? true };
  const buckets =
    options.rateLimit === false
      ? undefined
      : new TokenBuckets(options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const maxAttempts = options.maxAttempts ?? 3;
  const { renderer } = options;

  async function form(
    params: Record<string, unknown>,
    ctx: RequestContext,
    message: string,
  ): Promise<ElicitOutcome> {
    // compileSchema checks once and caches by content: a repeated form costs a lookup.
    let schema: CompiledSchema;
    try {
      schema = compileSchema(params.requestedSchema, {
        revision: schemaRevisionOf(ctx.revision),
        limits: options.limits,
      });
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      const first = error.issues[0];
      const more =
        error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem(s))` : '';
      renderer.notice?.({
        type: 'refused',
        server: ctx.server,
        reason: first?.message ?? 'invalid schema',
      });
      throw new ElicitationRefused(
        `Elicitation request refused: ${first?.message ?? 'invalid requestedSchema'}${more}`,
      );
    }
    let initial: Record<string, unknown> =
      options.applyDefaults === false ? {} : applyDefaults(schema, {});
    let issues: readonly AnswerIssue[] = [];
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const response = await renderer.form(
        { server: ctx.server, message, schema, issues, initial, attempt },
        ctx.signal,
      );
      if (response.action !== 'accept') return { action: response.action };
      // Exactly what was reviewed: a default is never added back to a field the person cleared.
      const content = { ...response.content };
      issues = schema.validate(content);
      if (issues.length === 0) return { action: 'accept', content };
      initial = content;
    }
    return { action: 'cancel' };
  }

  async function url(
    params: Record<string, unknown>,
    ctx: RequestContext,
    message: string,
    era: 'legacy' | 'modern',
  ): Promise<ElicitOutcome> {
    if (typeof params.url !== 'string')
      throw new ElicitationRefused('Elicitation request refused: url must be a string.');
    const analysis = analyzeUrl(params.url, options.url);
    const elicitationId =
      typeof params.elicitationId === 'string' ? params.elicitationId : undefined;
    const open = async () => {
      if (analysis.href === undefined)
        throw new InternalError('a refused URL was about to be opened');
      await options.openUrl?.(analysis.href);
    };
    const response: UrlResponse = await renderer.url(
      { server: ctx.server, message, analysis, elicitationId, awaitDone: era === 'modern', open },
      ctx.signal,
    );
    if (response.action === 'opened' && analysis.href !== undefined) return { action: 'accept' };
    return { action: response.action === 'opened' ? 'decline' : response.action };
  }

  return {
    modes,
    async handle(raw, ctx) {
      if (raw === null || typeof raw !== 'object')
        throw new ElicitationRefused('Elicitation request refused: params must be an object.');
      const params = raw as Record<string, unknown>;
      const mode = params.mode ?? 'form';
      if (mode !== 'form' && mode !== 'url')
        throw new ElicitationRefused(
          `Elicitation request refused: unknown mode ${JSON.stringify(mode)}.`,
        );
      if (!modes[mode])
        throw new ElicitationRefused(
          `Elicitation request refused: this client did not declare ${mode} mode.`,
        );
      if (typeof params.message !== 'string')
        throw new ElicitationRefused('Elicitation request refused: message must be a string.');
      if (buckets !== undefined && !buckets.take(ctx.server.name)) {
        renderer.notice?.({ type: 'rate_limited', server: ctx.server, mode });
        return { action: 'decline' };
      }
      const era = eraOf(ctx.revision);
      return mode === 'form'
        ? form(params, ctx, params.message)
        : url(params, ctx, params.message, era);
    },
  };
}
