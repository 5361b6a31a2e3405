import { randomUUID } from 'node:crypto';
/** The legacy engine: 2025-06-18 / 2025-11-25 sessions, where the server can push requests. */
import {
  type ClientCapabilities,
  type McpServer,
  SdkError,
  SdkErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type AllSpec,
  type Ask,
  type AskLimits,
  checkKey,
  declares,
  defaultMessage,
  forRevision,
  judge,
  rejected,
  withReasons,
} from './ask.ts';
import { AskTimeoutError, AskUsageError, ElicitationUnsupportedError } from './errors.ts';
import { resolveForm } from './forms.ts';

export function legacyAsk(ctx: ServerContext, mcp: McpServer, limits: AskLimits): Ask {
  const caps: ClientCapabilities | undefined = mcp.server.getClientCapabilities();
  const revision = mcp.server.getNegotiatedProtocolVersion() ?? '2025-11-25';
  // A timeout is the person not answering: a typed error the runner turns into a clear result.
  const waitFor = async <T>(key: string, send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (error) {
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        throw new AskTimeoutError(key, limits.timeoutMs);
      throw error;
    }
  };
  const options = () => ({
    relatedRequestId: ctx.mcpReq.id,
    timeout: limits.timeoutMs,
    signal: ctx.mcpReq.signal,
  });

  const ask: Ask = {
    revision,
    can: (what) => declares(caps, what),
    async form(key, input, opts) {
      checkKey(key);
      if (!declares(caps, 'form')) throw new ElicitationUnsupportedError('form elicitation');
      const form = resolveForm(input);
      const lowered = forRevision(form, revision);
      const message = opts?.message ?? defaultMessage(form);
      let issues: Parameters<typeof withReasons>[1] = [];
      for (let attempt = 1; attempt <= limits.maxAttempts; attempt++) {
        const response = await waitFor(key, () =>
          ctx.mcpReq.elicitInput(
            {
              mode: 'form',
              message: attempt === 1 ? message : withReasons(message, issues, form),
              requestedSchema: lowered.requestedSchema as never,
            },
            options(),
          ),
        );
        const verdict = await judge(
          form,
          response,
          lowered.identity ? undefined : lowered.mapAnswer,
        );
        if ('result' in verdict) return verdict.result as never;
        issues = verdict.issues;
      }
      throw rejected(key, limits.maxAttempts, issues);
    },
    async all(specs) {
      const keys = Object.keys(specs);
      if (keys.length > limits.maxKeysPerRound) {
        throw new AskUsageError(
          `A handler asked for ${keys.length} inputs in one round; the limit is ${limits.maxKeysPerRound} (limits.maxKeysPerRound).`,
        );
      }
      const results = await Promise.all(
        keys.map((k) => {
          const spec = specs[k] as AllSpec;
          if ('form' in spec) return ask.form(k, spec.form, spec);
          if ('sample' in spec) return ask.sample(k, spec.sample);
          return ask.roots(k);
        }),
      );
      return Object.fromEntries(keys.map((k, i) => [k, results[i]])) as never;
    },
    async url(key, request) {
      checkKey(key);
      if (!declares(caps, 'url')) throw new ElicitationUnsupportedError('URL elicitation');
      const response = await waitFor(key, () =>
        ctx.mcpReq.elicitInput(
          { mode: 'url', message: request.message, url: request.url, elicitationId: randomUUID() },
          options(),
        ),
      );
      const action = (response as { action?: unknown }).action;
      return { action: action === 'accept' || action === 'decline' ? action : 'cancel' };
    },
    async step(key, fn) {
      checkKey(key);
      return fn();
    },
    async once(key, fn) {
      checkKey(key);
      return fn();
    },
    async sample(key, params) {
      checkKey(key);
      if (!declares(caps, 'sampling')) throw new ElicitationUnsupportedError('sampling');
      return (await waitFor(key, () => ctx.mcpReq.requestSampling(params, options()))) as never;
    },
    async roots(key) {
      checkKey(key);
      if (!declares(caps, 'roots')) throw new ElicitationUnsupportedError('roots');
      return (await ctx.mcpReq.send(
        { method: 'roots/list' } as never,
        options() as never,
      )) as never;
    },
  };
  return ask;
}
