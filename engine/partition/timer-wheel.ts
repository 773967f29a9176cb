// A leader's armed timers, in memory: one setTimeout for the earliest due
// timer at a time. Loaded from Postgres on takeover; fired timers become
// commands on the leader's own partition.
import type { StartTimer } from '../store/index.ts';

export interface ArmedTimer {
  key: string;
  account: string;
  dueAt: number;
  /** An instance's timer (catch, boundary, event subprocess start). */
  instanceKey?: string;
  /** A timer start event of a deployed process version: firing starts an instance. */
  start?: StartTimer;
}

export class TimerWheel {
  private readonly timers = new Map<string, ArmedTimer>();
  private handle: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  private stopped = false;

  constructor(private readonly onDue: (timer: ArmedTimer) => void) {}

  arm(timer: ArmedTimer): void {
    this.timers.set(timer.key, timer);
    this.reschedule();
  }

  disarm(key: string): void {
    this.timers.delete(key);
  }

  get size(): number {
    return this.timers.size;
  }

  /** Armed timer start events of one process. */
  startTimersOf(account: string, bpmnProcessId: string): ArmedTimer[] {
    return [...this.timers.values()].filter((t) => t.account === account && t.start?.bpmnProcessId === bpmnProcessId);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.handle);
    this.timers.clear();
  }

  private reschedule(): void {
    if (this.stopped) return;
    let earliest = Infinity;
    for (const t of this.timers.values()) if (t.dueAt < earliest) earliest = t.dueAt;
    if (earliest >= this.armedFor && this.handle !== undefined) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.armedFor = earliest;
    if (earliest === Infinity) return;
    // setTimeout caps at ~24.8 days; a later timer is re-checked then.
    const delay = Math.min(Math.max(0, earliest - Date.now()), 2 ** 31 - 1);
    this.handle = setTimeout(() => this.fire(), delay);
  }

  private fire(): void {
    this.handle = undefined;
    this.armedFor = Infinity;
    const now = Date.now();
    for (const timer of [...this.timers.values()]) {
      if (timer.dueAt <= now) {
        this.timers.delete(timer.key);
        this.onDue(timer);
      }
    }
    this.reschedule();
  }
}
