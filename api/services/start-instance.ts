// Starting an instance as every interface does it (REST, MCP): 1 credit,
// charged before the start and refunded when the start is refused or gets no
// answer in time, and not charged again when a command key replays a start
// that was answered before (SPEC.md Endpoints; the Idempotency-Key extension).
import { type CommandOptions, EngineError, type Variables } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';
import { keyedTimeout } from './idempotency.ts';

export interface StartedInstance {
  processInstanceKey: string;
  bpmnProcessId: string;
  version: number;
  state: string;
}

/** Starts the latest version of `bpmnProcessId`; throws ApiError OUT_OF_CREDITS having done nothing when the account has no credit left. */
export async function startChargedInstance(
  ctx: ApiContext,
  account: string,
  bpmnProcessId: string,
  variables: Variables,
  keyed?: CommandOptions & { commandKey: string; fingerprint: string },
): Promise<StartedInstance> {
  // A keyed start answered before is answered again from its result: it paid (or was refunded) the first time.
  const answered = keyed !== undefined && (await ctx.engine.hasCommandResult(account, keyed.commandKey));
  const undo = answered ? undefined : await ctx.credits.charge(account, 1, 'process-instance-start', bpmnProcessId);
  let replayed = false;
  try {
    const started = await ctx.engine.startInstance(account, bpmnProcessId, variables, keyed && { ...keyed, onReplay: () => (replayed = true) });
    // Answered from a retry's twin that committed first (both were in flight): that one paid.
    if (replayed) await undo?.();
    // Built field by field: a result read back from the command log (jsonb) has its keys in another order.
    return { processInstanceKey: started.processInstanceKey, bpmnProcessId: started.bpmnProcessId, version: started.version, state: started.state };
  } catch (err) {
    // Refused or unanswered, the client is told it did not start, so it does not pay:
    // after a timeout the start may still run later, then free of charge.
    await undo?.();
    if (err instanceof EngineError && err.code === 'TIMEOUT' && keyed !== undefined) {
      throw keyedTimeout(`The start may still run; it was not charged${undo === undefined ? '' : ' (the credit was refunded)'}.`);
    }
    if (err instanceof EngineError && err.code === 'TIMEOUT') {
      throw new ApiError(
        'UNAVAILABLE',
        'No committed answer from the engine in time. The start may still run; it was not charged (the credit was refunded). ' +
          'Before starting again, look for the instance (GET /api/v1/process-instances, e.g. with filter.variable on an identifier of yours).',
        { retryAfterSeconds: 1 },
      );
    }
    throw err;
  }
}
