/**
 * What the server and the client both say of tasks (the `io.modelcontextprotocol/tasks`
 * extension and the experimental tasks of 2025-11-25): the extension's name and a task's
 * statuses, written once so the two sides cannot drift.
 */

/** The tasks extension's identifier, as declared in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A task's status, as the protocol names them. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Every status a task may have: a peer's status outside this set is not a task status. */
export const TASK_STATUSES: ReadonlySet<string> = new Set<TaskStatus>([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** Whether a peer-sent value is one of the protocol's task statuses. */
export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && TASK_STATUSES.has(value);
}
