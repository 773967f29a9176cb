// Publishing a message (extension, docs/messages.md) as every interface
// does it (REST, MCP): the body as the API takes it, then 1 credit per
// instance a message start event would start (charged before, like a start;
// the instances it did not start are refunded, and all of them when an
// Idempotency-Key replays a publish that already paid), then the engine
// publishes.
// A second publish with the messageId of a message still buffered is a 409
// (Zeebe's ALREADY_EXISTS); a full buffer is a 429.
import { z } from 'zod';
import { EngineError, LIMITS, type CommandOptions } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';
import { idSchema } from './ids.ts';
import { variablesSchema } from './variables.ts';

const messageText = z.string().max(LIMITS.maxMessageKeyLength);

export const publishMessageBody = z.object({
  name: messageText.min(1).describe('The message name, as the model names it (bpmn:message name).'),
  correlationKey: z
    .union([messageText, z.number().finite()])
    .optional()
    .describe(
      'Matched against the correlation key each waiting subscription evaluated (zeebe:subscription correlationKey) when its wait began; a ' +
        'number matches its decimal text. Absent: the empty key (message start events need none).',
    ),
  variables: variablesSchema.optional().describe('Set where the message is caught: in the waiting element, or the new instance for a message start.'),
  timeToLive: z
    .number()
    .int()
    .min(0)
    .max(LIMITS.maxMessageTimeToLiveMs)
    .optional()
    .describe(
      `How long the message stays buffered for subscriptions opened later, in milliseconds; 0 (the default): it reaches only waits open now. At most ${LIMITS.maxMessageTimeToLiveMs} (7 days).`,
    ),
  messageId: idSchema
    .optional()
    .describe('Makes the publish idempotent: while a message with this name, correlation key and messageId is buffered, another is refused with 409.'),
});

export const publishedMessageSchema = z.object({
  messageKey: z.string().describe('The key of the published message (Zeebe answers a publish with it).'),
  startedInstances: z.number().int().describe('Instances started by message start events (1 credit each).'),
});

export type PublishMessageBody = z.infer<typeof publishMessageBody>;

export async function publishMessage(
  ctx: ApiContext,
  account: string,
  body: PublishMessageBody,
  keyed?: CommandOptions & { commandKey: string },
): Promise<z.infer<typeof publishedMessageSchema>> {
  const correlationKey = body.correlationKey === undefined ? '' : String(body.correlationKey);
  const starts = await ctx.engine.eventStarts(account, 'message', body.name);
  // One charge per start, so the starts that did not happen are refunded one by one.
  const undos: (() => Promise<void>)[] = [];
  try {
    for (let i = 0; i < starts; i++) undos.push(await ctx.credits.charge(account, 1, 'message-start', body.name));
  } catch (err) {
    for (const undo of undos) await undo();
    throw err;
  }
  let started = 0;
  let replayed = false;
  try {
    const options = keyed === undefined ? {} : { ...keyed, onReplay: () => (replayed = true) };
    const outcome = await ctx.engine.publishMessage(
      account,
      {
        name: body.name,
        correlationKey,
        variables: body.variables ?? {},
        timeToLive: body.timeToLive ?? 0,
        ...(body.messageId === undefined ? {} : { messageId: body.messageId }),
      },
      starts,
      options,
    );
    if (outcome.published) {
      // A replay answers the first publish's result: that one paid for its starts.
      if (!replayed) started = outcome.started;
      return { messageKey: outcome.messageKey, startedInstances: outcome.started };
    }
    if (outcome.reason === 'duplicate') {
      throw new ApiError(
        'CONFLICT',
        `A message named '${body.name}' with this correlation key and messageId '${body.messageId}' is still buffered (message ${outcome.messageKey}); nothing was published.`,
        { messageKey: outcome.messageKey },
      );
    }
    throw new ApiError(
      'RATE_LIMITED',
      `This account has ${outcome.limit} messages buffered on this message's partition, the most it may; publish with a shorter timeToLive or once some expire.`,
      { retryAfterSeconds: 1 },
    );
  } catch (err) {
    if (err instanceof EngineError && err.code === 'TIMEOUT') {
      // Refunded below: the client is told it did not happen.
      throw new ApiError(
        'UNAVAILABLE',
        'No committed answer from the engine in time. The message may still be published, without charge; ' +
          (keyed === undefined ? 'with a messageId, publishing again is safe.' : 'sending the same request with the same Idempotency-Key is safe.'),
        { retryAfterSeconds: 1 },
      );
    }
    throw err;
  } finally {
    for (const undo of undos.slice(started)) await undo();
  }
}
