// Job queues, command streams, replies and long-poll wake-ups (DESIGN.md §1,
// §4): the contracts, and the factory that picks Redis or the in-process
// implementation.
export { createQueues } from './create-queues.ts';
export type * from './types.ts';
