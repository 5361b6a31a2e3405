/**
 * URL mode in the host, on every era: after the consent screen comes a waiting screen with
 * "Done, retry now", "Open again" and "Cancel". A page the server asks for again in the same
 * call (the person said done too early, or the server never announced completion) is not
 * consented to twice: the host says the step is still pending and retries with backoff.
 * Nothing waits silently.
 */
import type { Readable, Writable } from 'node:stream';
import * as p from '@clack/prompts';
import type { ClientEvent, Renderer, UrlRequest, UrlResponse } from '../../client/index.ts';
import { inert } from '../../client/index.ts';
import { chooseKey, closable } from '../../client/internal.ts';
import type { HostLimits } from './limits.ts';

/** The running request, as the renderer needs it. */
export interface ActiveCall {
  readonly label: string;
  /** Aborted when the person or the idle timer cancels the call. */
  readonly signal: AbortSignal;
  /** Aborted when the call is over, however it ended: every screen of the call closes then. */
  readonly ended: AbortSignal;
  /** Screens still open beside the call; the host waits for them before it shows the result. */
  readonly screens: Set<Promise<unknown>>;
  /** Pages opened during this call (origin + path), with how often they were retried since. */
  readonly pages: Map<string, { open(): Promise<void>; rounds: number }>;
  cancel(): void;
  retryNow(): void;
  pendingCount(): number;
}

export interface HostUi {
  readonly interactive: boolean;
  readonly io: { input: Readable; output: Writable };
  readonly limits: HostLimits;
  /** A prompt takes the terminal (status line and keys step aside) / gives it back. */
  promptStart(): void;
  promptEnd(): void;
  /** A line for the person (above the status line, or in the scripted log). */
  say(line: string): void;
  status(text: string): void;
  active(): ActiveCall | undefined;
}

export function pageOf(href: string | undefined): string {
  try {
    const u = new URL(href ?? '');
    return `${u.origin}${u.pathname}`;
  } catch {
    return href ?? '';
  }
}

export function backoff(round: number, limits: HostLimits): number {
  return Math.min(limits.retryMaxMs, limits.retryFirstMs * 2 ** Math.min(round, 16));
}

type WaitChoice = 'retry' | 'cancel' | 'ended';

/**
 * The waiting screen. Interactive: a key choice; `autoMs` retries by itself after that long.
 * Scripted: a line saying what happens next, then the retry after `autoMs`.
 */
async function waitScreen(
  ui: HostUi,
  message: string,
  open: () => Promise<void>,
  end: AbortSignal,
  autoMs: number | undefined,
): Promise<WaitChoice> {
  if (!ui.interactive) {
    const ms = autoMs ?? ui.limits.retryFirstMs;
    ui.say(`  ${message} Retrying in ${Math.round(ms / 1000)} s.`);
    return new Promise<WaitChoice>((resolve) => {
      if (end.aborted) return resolve('ended');
      const timer = setTimeout(() => resolve('retry'), ms);
      end.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve('ended');
        },
        { once: true },
      );
    });
  }
  for (;;) {
    if (end.aborted) return 'ended';
    const local = new AbortController();
    let auto = false;
    const timer =
      autoMs === undefined
        ? undefined
        : setTimeout(() => {
            auto = true;
            local.abort();
          }, autoMs);
    const onEnd = () => local.abort();
    end.addEventListener('abort', onEnd, { once: true });
    const suffix =
      autoMs === undefined ? '' : ` Retrying by itself in ${Math.round(autoMs / 1000)} s.`;
    ui.promptStart();
    let choice: unknown;
    try {
      choice = await closable(ui.io.input, local.signal, (signal) =>
        chooseKey({
          ...ui.io,
          message: `${message}${suffix}`,
          options: [
            { value: 'r', label: 'Done, retry now' },
            { value: 'o', label: 'Open the page again' },
            { value: 'c', label: 'Cancel' },
          ],
          signal,
        }),
      );
    } finally {
      clearTimeout(timer);
      end.removeEventListener('abort', onEnd);
      ui.promptEnd();
    }
    if (p.isCancel(choice)) return auto ? 'retry' : end.aborted ? 'ended' : 'cancel';
    if (choice === 'r') return 'retry';
    if (choice === 'c') return 'cancel';
    try {
      await open();
      ui.say('Opened the page again in your browser.');
    } catch (error) {
      ui.say(inert((error as Error).message, 2200, false));
    }
  }
}

/** Aborted when the call is cancelled or over. */
function during(call: ActiveCall): AbortSignal {
  return AbortSignal.any([call.signal, call.ended]);
}

/** Wraps the base renderer: prompts take the terminal, URL steps get the waiting screen. */
export function hostRenderer(base: Renderer, ui: HostUi): Renderer {
  // The legacy wait runs beside attach's own wait for the completion notification.
  let legacyWait: AbortController | undefined;
  let legacyScreen: Promise<void> | undefined;
  const endLegacyWait = () => {
    legacyWait?.abort();
    legacyWait = undefined;
  };
  /** A new screen of the call takes the terminal: the waiting screen closes first. */
  const takeOver = async () => {
    endLegacyWait();
    await legacyScreen;
  };

  function startLegacyWait(
    call: ActiveCall,
    open: () => Promise<void>,
    message: string,
    autoMs: number | undefined,
  ): void {
    const previous = legacyScreen;
    endLegacyWait();
    const end = new AbortController();
    legacyWait = end;
    // The screen belongs to the call: it closes when the call is cancelled or ends normally.
    const stop = AbortSignal.any([end.signal, call.signal, call.ended]);
    ui.status(`${call.label}: waiting for the browser step to complete…`);
    // After the renderer returns, so attach is already waiting when the person answers.
    const screen = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      await previous;
      const choice = await waitScreen(ui, message, open, stop, autoMs).catch(
        () => 'cancel' as const,
      );
      if (legacyWait === end) legacyWait = undefined;
      if (call.ended.aborted) {
        if (choice === 'ended' && ui.interactive) ui.say('(The call is over: that screen closed.)');
        return;
      }
      if (choice === 'retry') {
        ui.say(`${call.label}: retrying now.`);
        call.retryNow();
      } else if (choice === 'cancel') call.cancel();
    });
    legacyScreen = screen;
    call.screens.add(screen);
    // The call settles its screens (allSettled); this copy of a failed one must not go unhandled.
    screen
      .finally(() => {
        call.screens.delete(screen);
        if (legacyScreen === screen) legacyScreen = undefined;
      })
      .catch(() => {});
  }

  return {
    async form(request, signal) {
      const call = ui.active();
      await takeOver();
      ui.promptStart();
      try {
        return await base.form(
          request,
          call === undefined ? signal : AbortSignal.any([signal, call.ended]),
        );
      } finally {
        ui.promptEnd();
      }
    },

    async url(request: UrlRequest, signal): Promise<UrlResponse> {
      const call = ui.active();
      const page = pageOf(request.analysis.href);
      const known = call?.pages.get(page);
      if (call !== undefined && known !== undefined && request.analysis.href !== undefined) {
        // Asked again for a page already opened in this call: still pending, not a new consent.
        const delay = backoff(known.rounds++, ui.limits);
        const message = `The server says the browser step is not finished yet (round ${known.rounds}).`;
        if (request.awaitDone) {
          ui.status(`${call.label}: still waiting for the browser step…`);
          const choice = await waitScreen(ui, message, known.open, during(call), delay);
          return choice === 'retry' ? { action: 'opened' } : { action: 'cancel' };
        }
        startLegacyWait(call, known.open, message, ui.interactive ? undefined : delay);
        return { action: 'opened' };
      }
      let response: UrlResponse;
      await takeOver();
      ui.promptStart();
      try {
        // The host shows its own waiting screen (with "open again") after opening.
        response = await base.url(
          { ...request, awaitDone: false },
          call === undefined ? signal : AbortSignal.any([signal, call.ended]),
        );
      } finally {
        ui.promptEnd();
      }
      if (response.action !== 'opened' || call === undefined) return response;
      call.pages.set(page, { open: request.open, rounds: 0 });
      const message = 'Finish in your browser, then choose Done.';
      if (request.awaitDone) {
        const choice = await waitScreen(
          ui,
          message,
          request.open,
          during(call),
          ui.interactive ? undefined : ui.limits.retryFirstMs,
        );
        if (choice !== 'retry') return { action: 'cancel' };
        ui.status(`${call.label}: the server is checking the browser step…`);
        return response;
      }
      startLegacyWait(
        call,
        request.open,
        `${message} (The server should tell us when it is done.)`,
        ui.interactive ? undefined : backoff(0, ui.limits),
      );
      return response;
    },

    notice(event: ClientEvent) {
      const call = ui.active();
      if (event.type === 'url_completed') {
        if (call === undefined || call.pendingCount() === 0) endLegacyWait();
        ui.say('A browser step completed.');
        return;
      }
      if (event.type === 'retrying') {
        endLegacyWait();
        if (call !== undefined) ui.status(`${call.label}: retrying after the browser step…`);
        return;
      }
      ui.promptStart();
      try {
        base.notice?.(event);
      } finally {
        ui.promptEnd();
      }
    },
  };
}
