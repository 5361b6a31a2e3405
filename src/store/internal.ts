/**
 * What other parts of elicit may use of the stores without loading every driver: the memory
 * store (the server's default) and ask.once markers on any store. Not a package export.
 */
export { memoryStore } from './memory.ts';
export { onceStoreFrom } from './once.ts';
