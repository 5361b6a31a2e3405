/**
 * Progress keep-alive for a call waiting on a person (2025 sessions): while an ask waits, a
 * `notifications/progress` goes out every `progressEveryMs` on the call's progress token, so a
 * client that resets its request timeout on progress keeps waiting as long as the person needs.
 *
 * Progress values must strictly increase on a token, and the handler may report its own on the
 * same token: every progress notification the call sends passes through here, the highest value
 * is tracked, and a keep-alive rises a negligible step above it, keeping the handler's total.
 */
import type { ServerContext } from '@modelcontextprotocol/server';

export const KEEP_ALIVE_MESSAGE = 'waiting for the person to answer';

/** The smallest clear step above `x` (a fixed step vanishes in rounding for large values). */
function above(x: number): number {
  const next = x + 1e-6;
  return next > x ? next : x + Math.abs(x) * Number.EPSILON * 4;
}

export interface KeepAlive {
  /** Starts the keep-alive for one wait (waits may overlap); call the result when it ends. */
  hold(): () => void;
}

const NOTHING_HELD = () => {};
/** No progress token, nothing to keep alive: shared, so most waiting calls allocate nothing. */
const NO_KEEP_ALIVE: KeepAlive = { hold: () => NOTHING_HELD };

export function progressKeepAlive(ctx: ServerContext, everyMs: number): KeepAlive {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return NO_KEEP_ALIVE;
  const req = ctx.mcpReq;
  const notify = req.notify.bind(req);
  let highest: number | undefined;
  let total: number | undefined;
  // Every progress the call sends on its token goes through here, the handler's included.
  req.notify = (notification) => {
    const params = notification.params as Record<string, unknown> | undefined;
    if (
      notification.method !== 'notifications/progress' ||
      params?.progressToken !== token ||
      typeof params.progress !== 'number'
    )
      return notify(notification);
    let progress = params.progress;
    // A value at or below one already sent would break the token's order: lift it just above.
    if (highest !== undefined && progress <= highest) progress = above(highest);
    highest = progress;
    if (typeof params.total === 'number') total = params.total;
    return notify({ ...notification, params: { ...params, progress } } as typeof notification);
  };
  let holders = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const beat = () => {
    if (req.signal.aborted) return;
    const progress = highest === undefined ? 0 : above(highest);
    void req
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          message: KEEP_ALIVE_MESSAGE,
        },
      })
      .catch(() => {});
  };
  return {
    hold() {
      holders++;
      if (timer === undefined) {
        timer = setInterval(beat, everyMs);
        timer.unref();
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holders--;
        if (holders === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}
