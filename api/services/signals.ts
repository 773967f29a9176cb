// Broadcasting a signal (extension, docs/signals.md) as every interface does
// it (REST, MCP): the body as the API takes it, a per-account flood guard,
// then 1 credit per instance a signal start event would start (charged
// before, like a start; those it did not start are refunded, and all of
// them when an Idempotency-Key replays a broadcast that already paid), then
// the engine broadcasts on every partition.
import { z } from 'zod';
import { EngineError, LIMITS, type CommandOptions } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { LocalTokenBuckets, type BucketLimits, type TokenBuckets } from '../plugins/rate-limit-buckets.ts';
import { ApiError } from '../problem.ts';
import { variablesSchema } from './variables.ts';

export const broadcastSignalBody = z.object({
  name: z.string().min(1).max(LIMITS.maxMessageKeyLength).describe('The signal name, as the model names it (bpmn:signal name).'),
  variables: variablesSchema
    .optional()
    .describe(
      'Set where the signal is caught: in the waiting catch event (through its output mappings), the flow scope of a boundary or event subprocess, or each new instance.',
    ),
});

export const broadcastedSignalSchema = z.object({
  signalKey: z.string().describe('The key of the broadcast signal (Zeebe answers a broadcast with it).'),
  startedInstances: z.number().int().describe('Instances started by signal start events (1 credit each).'),
});

export type BroadcastSignalBody = z.infer<typeof broadcastSignalBody>;

/** The flood guard: broadcasts per account and API process, apart from the request limit (one broadcast reaches every partition). */
export const SIGNAL_FLOOD_LIMIT: BucketLimits = { perSecond: 50, burst: 100 };

const floodGuards = new WeakMap<ApiContext, TokenBuckets>();

async function takeBroadcast(ctx: ApiContext, account: string): Promise<void> {
  let buckets = floodGuards.get(ctx);
  if (buckets === undefined) floodGuards.set(ctx, (buckets = new LocalTokenBuckets(SIGNAL_FLOOD_LIMIT)));
  const take = await buckets.take(`signals:${account}`);
  if (take.allowed) return;
  const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000));
  throw new ApiError(
    'RATE_LIMITED',
    `Too many signal broadcasts from this account (at most ${SIGNAL_FLOOD_LIMIT.perSecond} a second, in bursts of ${SIGNAL_FLOOD_LIMIT.burst}); nothing was broadcast. Retry in ${seconds} s.`,
    { retryAfterSeconds: seconds },
  );
}

export async function broadcastSignal(
  ctx: ApiContext,
  account: string,
  body: BroadcastSignalBody,
  keyed?: CommandOptions & { commandKey: string },
): Promise<z.infer<typeof broadcastedSignalSchema>> {
  await takeBroadcast(ctx, account);
  const starts = await ctx.engine.eventStarts(account, 'signal', body.name);
  // One charge per start, so the starts that did not happen are refunded one by one.
  const undos: (() => Promise<void>)[] = [];
  try {
    for (let i = 0; i < starts; i++) undos.push(await ctx.credits.charge(account, 1, 'signal-start', body.name));
  } catch (err) {
    for (const undo of undos) await undo();
    throw err;
  }
  let kept = 0;
  let replayed = false;
  try {
    const options = keyed === undefined ? {} : { ...keyed, onReplay: () => (replayed = true) };
    const outcome = await ctx.engine.broadcastSignal(account, { name: body.name, variables: body.variables ?? {} }, starts, options);
    // A replay answers the first broadcast's result: that one paid for its starts.
    if (!replayed) kept = outcome.started;
    return { signalKey: outcome.signalKey, startedInstances: outcome.started };
  } catch (err) {
    if (err instanceof EngineError && err.code === 'TIMEOUT') {
      // Refunded below: the client is told it may not have happened.
      throw new ApiError(
        'UNAVAILABLE',
        'No committed answer from the engine in time. The signal may still be broadcast, without charge' +
          (keyed === undefined ? '.' : '; sending the same request with the same Idempotency-Key is safe.'),
        { retryAfterSeconds: 1 },
      );
    }
    throw err;
  } finally {
    for (const undo of undos.slice(kept)) await undo();
  }
}
