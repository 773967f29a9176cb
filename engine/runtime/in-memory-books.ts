// The bookkeeping both in-memory engines (processes: in-memory-engine.ts;
// cases: engine/cmmn/runtime/in-memory-case-engine.ts) do alike with an
// applied command's result: keep its history when asked, and carry out the
// effects that mean the same for a process and a case — a job offered or
// withdrawn, a timer armed or disarmed. Each engine does the rest itself.
import type { Effect, HistoryRecord, JobOffer } from './types.ts';

export interface InMemoryBooks {
  /** Job key → the instance (or case) that owns it. */
  jobOwners: Map<string, string>;
  /** Job type → the jobs offered and not yet activated. */
  queues: Map<string, JobOffer[]>;
  timers: Map<string, { dueAt: number; instanceKey?: string }>;
  histories: Map<string, HistoryRecord[]>;
}

export function keepHistory(books: InMemoryBooks, instanceKey: string, records: HistoryRecord[]): void {
  const history = books.histories.get(instanceKey);
  if (history === undefined) books.histories.set(instanceKey, records);
  else history.push(...records);
}

/** Carries out an effect both engines treat alike; false when it is one the engine handles itself. */
export function bookEffect(books: InMemoryBooks, effect: Effect, ownerKey: string): boolean {
  switch (effect.type) {
    case 'enqueueJob': {
      books.jobOwners.set(effect.job.key, ownerKey);
      let queue = books.queues.get(effect.job.type);
      if (queue === undefined) books.queues.set(effect.job.type, (queue = []));
      queue.push(effect.job);
      return true;
    }
    case 'cancelJob':
      books.jobOwners.delete(effect.jobKey);
      return true;
    case 'scheduleTimer':
      books.timers.set(effect.timerKey, { dueAt: effect.dueAt, instanceKey: ownerKey });
      return true;
    case 'cancelTimer':
      books.timers.delete(effect.timerKey);
      return true;
    default:
      return false;
  }
}
