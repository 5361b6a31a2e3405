import type { FollowTaskLimits } from '../../client/index.ts';

/** Every bound `elicit host` applies, with its default. */
export interface HostLimits {
  /** Connect (start, initialise) must finish within this; `--connect-timeout`. */
  readonly connectTimeoutMs: number;
  /** A call may be silent (no result, no progress) this long; paused while you answer. `--timeout`. */
  readonly callTimeoutMs: number;
  /** stderr lines of a stdio server kept to explain a failure. */
  readonly stderrLines: number;
  /** Characters of one text item shown. */
  readonly textChars: number;
  /** Bytes of one image/audio/blob saved to a temp file. */
  readonly savedBytes: number;
  /** Waiting for a browser step before giving up. */
  readonly urlWaitMs: number;
  /** Retries of one call while a browser step is still pending. */
  readonly urlRetries: number;
  /** First and longest pause between automatic retries while a browser step is pending. */
  readonly retryFirstMs: number;
  readonly retryMaxMs: number;
  /** Reconnects while following one task (the server went away); paced like the retries above. */
  readonly taskReconnects: number;
  /** Resource templates shown in the menu, and resource links from results kept to follow. */
  readonly listedTemplates: number;
  /** Bounds on a followed task (poll interval, polls, time, questions); elicit/client's defaults. */
  readonly tasks?: Partial<FollowTaskLimits>;
}

export const HOST_LIMITS: HostLimits = Object.freeze({
  connectTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  stderrLines: 20,
  textChars: 20_000,
  savedBytes: 20 * 1024 * 1024,
  urlWaitMs: 600_000,
  urlRetries: 30,
  retryFirstMs: 2_000,
  retryMaxMs: 30_000,
  taskReconnects: 5,
  listedTemplates: 100,
});
