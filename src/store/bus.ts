/**
 * The message buses between replicas that share a store (the implementations live in the
 * kernel, below every part that uses them: the connect pages' completion events and the gateway
 * inbox's answers). A bus carries wake-ups; what happened is in the store.
 */
export {
  type BusOptions,
  type BusReader,
  type MessageBus,
  memoryBus,
  postgresBus,
  redisBus,
} from '../kernel/bus.ts';
