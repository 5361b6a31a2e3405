/**
 * What other parts of elicit may use of the client beyond elicit/client: for the CLI host, a
 * prompt that ends when its input closes and the one-key choice its screens share; for the
 * gateway's upstream, the tasks extension on an SDK Client. Not a package export.
 */
export { chooseKey } from './choose-key.ts';
export { closable } from './dismiss.ts';
export { createdTask, hookTaskResults, sdkTaskWire } from './task-wire.ts';
