// Job queues, command streams, replies and long-poll wake-ups (DESIGN.md §1,
// §4): the contracts, the factory that picks Redis or the in-process
// implementation, the comparison of stream entry ids, and a job's offer
// apart from what travels with it.
export { createQueues } from './create-queues.ts';
export { offerOf } from './job-payload.ts';
export { streamIdIsAfter } from './stream-id.ts';
export type * from './types.ts';
