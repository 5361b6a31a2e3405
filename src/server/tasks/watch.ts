/**
 * The end of a 2026-07-28 task, heard by something the task holds outside its record (a
 * gateway's call held toward a 2025 server): a task parked in `input_required` runs no handler,
 * so nothing else would tell the holder that it was cancelled or expired. Writes this process
 * makes are heard at once (records.ts `onTaskChange`); writes of other replicas sharing the
 * store, at the next read (`tasks.watchEveryMs`); the expiry, when the task's TTL runs out.
 */
import type { TaskHost } from '../engines/task.ts';
import { isTerminal, onTaskChange, readTask, type TaskStatus } from './records.ts';

/** How a watched task ended: a terminal status, or `expired` (its record is gone). */
export type TaskEnd = Extract<TaskStatus, 'completed' | 'failed' | 'cancelled'> | 'expired';

/**
 * Calls `onEnd` once, when task `id` of `principal` ends; returns the stop (call it when the
 * holder is done first). A store that fails a read is read again at the next change or tick.
 */
export function watchTask(
  host: TaskHost,
  id: string,
  principal: string,
  onEnd: (end: TaskEnd) => void,
): () => void {
  let stopped = false;
  let expiry: NodeJS.Timeout | undefined;
  const end = (how: TaskEnd) => {
    if (stopped) return;
    stop();
    onEnd(how);
  };
  // Called as `void check()` from timers and listeners: nothing of it may reject, so a
  // throwing holder (onEnd) is told to the server's faults instead.
  const check = () => look().catch((error: unknown) => host.faults.failed('task watch', error));
  const look = async () => {
    if (stopped) return;
    const record = await readTask(host.store, id, principal).then(
      (stored) => stored?.value,
      () => null,
    );
    if (record === null || stopped) return;
    if (record === undefined) return end('expired');
    if (isTerminal(record.status)) return end(record.status as TaskEnd);
    const left = record.createdAt + record.ttlMs - Date.now();
    if (left <= 0) return end('expired');
    if (expiry === undefined) {
      expiry = setTimeout(() => void check(), left + 1);
      expiry.unref();
    }
  };
  const unlisten = onTaskChange(id, () => void check());
  const poll =
    host.store.scope === 'process'
      ? undefined
      : setInterval(() => void check(), host.limits.watchEveryMs);
  poll?.unref();
  function stop() {
    stopped = true;
    unlisten();
    clearTimeout(expiry);
    clearInterval(poll);
  }
  void check();
  return stop;
}
