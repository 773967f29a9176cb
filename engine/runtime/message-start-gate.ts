// Zeebe's rule for message start events (extension, docs/messages.md): while
// an instance that a message with correlation key K started is active, a
// message of that name and key starts no other instance of its process (any
// version); once it ends, the first buffered message of that name and key
// published after the one that started it starts the next. This module owns
// the in-memory index of which instance holds each (process, name, key) —
// rebuilt from the active instances' documents (startedByMessage) after a
// restart — shared by the in-memory engine and each partition leader. A
// message with the empty key is never held back. The name is part of the
// slot: messages of different names go to different message partitions, so
// a process with message starts of several names keeps the rule per name
// (the leader could not decide it locally otherwise).
import type { HistoryRecord, ProcessInstance, StartedByMessage } from './types.ts';

export type { StartedByMessage };

/** A message-started instance that ended while holding its slot: the next buffered message may start another. */
export interface EndedStart extends StartedByMessage {
  bpmnProcessId: string;
}

function slot(account: string, bpmnProcessId: string, name: string, correlationKey: string): string {
  return `${account}\u0000${bpmnProcessId}\u0000${name}\u0000${correlationKey}`;
}

export class MessageStartGate {
  /** slot → the instance holding it, or a token for a start on its way (a leader taking its credit). */
  private readonly held = new Map<string, string>();

  /** Whether a message of this name and key may start `bpmnProcessId` now. */
  open(account: string, bpmnProcessId: string, name: string, correlationKey: string): boolean {
    return correlationKey === '' || !this.held.has(slot(account, bpmnProcessId, name, correlationKey));
  }

  /** Who holds the slot: an instance key, a token, or undefined. */
  holder(account: string, bpmnProcessId: string, name: string, correlationKey: string): string | undefined {
    return this.held.get(slot(account, bpmnProcessId, name, correlationKey));
  }

  /** `by` (an instance key or a token) holds the slot; nothing for the empty key. */
  hold(account: string, bpmnProcessId: string, name: string, correlationKey: string, by: string): void {
    if (correlationKey !== '') this.held.set(slot(account, bpmnProcessId, name, correlationKey), by);
  }

  /** Frees the slot if `by` holds it; whether it did. */
  release(account: string, bpmnProcessId: string, name: string, correlationKey: string, by: string): boolean {
    const s = slot(account, bpmnProcessId, name, correlationKey);
    if (this.held.get(s) !== by) return false;
    this.held.delete(s);
    return true;
  }

  /** An instance loaded from storage: it holds its slot while active. */
  remember(account: string, instance: ProcessInstance): void {
    const by = gatedStart(instance);
    if (by !== undefined && !ended(instance)) this.hold(account, instance.bpmnProcessId, by.name, by.correlationKey, instance.key);
  }

  /**
   * After a command applied to `instance` (with these records): a
   * message-started instance takes its slot when it starts and frees it when
   * it ends. Returns what ended, when the next buffered message may start
   * another (also for one that ended as it started: the buffer moves on).
   */
  settled(account: string, instance: ProcessInstance, records: readonly HistoryRecord[]): EndedStart | undefined {
    const by = gatedStart(instance);
    if (by === undefined) return undefined;
    const started = records.some((r) => r.type === 'PROCESS_INSTANCE_STARTED');
    if (!ended(instance)) {
      if (started) this.hold(account, instance.bpmnProcessId, by.name, by.correlationKey, instance.key);
      return undefined;
    }
    const freed = this.release(account, instance.bpmnProcessId, by.name, by.correlationKey, instance.key);
    return freed || started ? { ...by, bpmnProcessId: instance.bpmnProcessId } : undefined;
  }

  clear(): void {
    this.held.clear();
  }
}

function ended(instance: ProcessInstance): boolean {
  return instance.state === 'COMPLETED' || instance.state === 'TERMINATED';
}

/** The message that started `instance` when it holds a slot (a non-empty key), else undefined. */
function gatedStart(instance: ProcessInstance): StartedByMessage | undefined {
  const by = instance.startedByMessage;
  return by !== undefined && by.correlationKey !== '' ? by : undefined;
}
