// Broadcasting a signal (extension, docs/signals.md): first on its home
// partition (a hash of account and name), whose leader alone starts
// instances by signal start events, then delivered to every other
// partition, each reaching its own waiting instances; the same fan-out as
// a published message (message-publish.ts), without a buffer or a
// correlation key. Under a client's key the home command answers a retry
// with its first result, and the deliveries, keyed by the signal key, are
// applied once however often the retry sends them.
import type { SendCommand, SendHome } from './command-client.ts';
import type { EngineCommand, SignalOutcome } from './commands.ts';
import type { Variables } from '../runtime/types.ts';
import { hashToPartition, scoped } from './keys.ts';

/** The partition that starts the instances a signal of this name starts: one per account and name. */
export function signalHome(account: string, name: string, partitions: number): number {
  return hashToPartition(`${account}\u0000signal\u0000${name}`, partitions);
}

export async function broadcastSignal(
  parts: { send: SendCommand; sendHome: SendHome; partitions: number; maxPending: number },
  account: string,
  signal: { name: string; variables: Variables },
  maxStarts: number,
): Promise<SignalOutcome> {
  const { send, partitions } = parts;
  const { name, variables } = signal;
  const home = signalHome(account, name, partitions);
  // Refused under backpressure like a start: a broadcast may start instances.
  const outcome = (await parts.sendHome(home, { kind: 'broadcastSignal', account, name, variables, maxStarts }, parts.maxPending + 1)).value as SignalOutcome;
  const sends: Promise<unknown>[] = [];
  for (let p = 0; p < partitions; p++) {
    if (p === home) continue;
    const command: EngineCommand = { kind: 'deliverSignal', account, signalKey: outcome.signalKey, name, variables };
    sends.push(send(p, command, scoped(account, `signal:${outcome.signalKey}`)));
  }
  await Promise.all(sends);
  return outcome;
}
