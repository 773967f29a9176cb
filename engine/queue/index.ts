// Job queues, command streams, replies and long-poll wake-ups (DESIGN.md §1,
// §4): the contracts, the factory that picks Redis or the in-process
// implementation, and the comparison of stream entry ids.
export { createQueues } from './create-queues.ts';
export { streamIdIsAfter } from './stream-id.ts';
export type * from './types.ts';
