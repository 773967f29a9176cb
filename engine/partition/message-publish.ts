// Publishing a message (extension, docs/messages.md): first on its message
// partition, whose leader alone decides messageId uniqueness and the
// buffer bound and starts message-start instances, then delivered to every
// other partition, each correlating its own waiting instances. Under a
// client's key the first command answers a retry with its first result, and
// the deliveries, keyed by the message key, are applied once.
import type { SendCommand, SendHome } from './command-client.ts';
import type { EngineCommand, PublishOutcome } from './commands.ts';
import type { Variables } from '../runtime/types.ts';
import { hashToPartition, scoped } from './keys.ts';

/** A message to publish (extension, docs/messages.md). */
export interface MessageToPublish {
  name: string;
  correlationKey: string;
  variables: Variables;
  /** ms; 0: not buffered. */
  timeToLive: number;
  messageId?: string;
}

export async function publishMessage(
  parts: { send: SendCommand; sendHome: SendHome; partitions: number; maxPending: number },
  account: string,
  message: MessageToPublish,
  maxStarts: number,
): Promise<PublishOutcome> {
  const { send, partitions, maxPending } = parts;
  const { name, correlationKey, variables } = message;
  const home = hashToPartition(`${account}\u0000${name}\u0000${correlationKey}`, partitions);
  const command: EngineCommand = { kind: 'publishMessage', account, name, correlationKey, variables, timeToLive: message.timeToLive, maxStarts };
  if (message.messageId !== undefined) command.messageId = message.messageId;
  // Refused under backpressure like a start: a publish may start instances.
  const outcome = (await parts.sendHome(home, command, maxPending + 1)).value as PublishOutcome;
  if (outcome.published || outcome.reason === 'duplicate') {
    const deliver = outcome.published ? { variables, expiresAt: outcome.expiresAt } : { variables: outcome.variables, expiresAt: outcome.expiresAt };
    const sends: Promise<unknown>[] = [];
    for (let p = 0; p < partitions; p++) {
      if (p === home) continue;
      // One key per message and partition: a delivery sent again (a retried duplicate) is applied once.
      const key = scoped(account, `message:${outcome.messageKey}`);
      sends.push(send(p, { kind: 'deliverMessage', account, messageKey: outcome.messageKey, name, correlationKey, ...deliver }, key));
    }
    await Promise.all(sends);
  }
  return outcome;
}
