/**
 * What other parts of elicit may use of the server beyond elicit/server: the pieces the gateway
 * composes into a forwarding server (an ElicitServer whose build makes its own McpServer, the
 * state gate, the runner, the wire table, the stdio and HTTP entries, and tasks on the gateway's
 * own sessions (2025-11-25's, and the 2026-07-28 task methods); what counts as loopback, for the gateway's inbox page). Not a
 * package export.
 */
export { ElicitServer, type ElicitServerOptions, type Era } from './app.ts';
export { taskOf } from './engines/task.ts';
export { type Gate, openGate } from './gate.ts';
export { type HttpOptions, httpEntry, type Listening, listen } from './http.ts';
export { isLoopbackHost } from './principal.ts';
export { invoke, type Runnable } from './runner.ts';
export { stdio } from './stdio.ts';
export { installLegacyTasks, type LegacyTaskMode, runsAsLegacyTask } from './tasks/legacy-tasks.ts';
export { installTaskMethods } from './tasks/methods.ts';
export { type TaskEnd, watchTask } from './tasks/watch.ts';
export { WireMcpServer } from './wire.ts';
