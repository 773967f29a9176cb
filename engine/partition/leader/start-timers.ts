// Timer start events (DESIGN: one partition owns a process's start timers):
// a deploy's scheduleStartTimers command replaces the armed start timers of
// a process with those of the new version, and a start timer that fires
// starts an instance at its start event and, for a cycle, is armed again.
import { apply } from '../../runtime/apply.ts';
import { startTimersOf } from '../../runtime/start-timers.ts';
import { nextDue } from '../../timer/index.ts';
import { startTimerRow } from '../../store/index.ts';
import type { CommandReply } from '../commands.ts';
import type { KeyGenerator } from '../keys.ts';
import type { EngineLog } from '../log.ts';
import type { ModelCache } from '../model-cache.ts';
import type { ArmedTimer, TimerWheel } from '../timer-wheel.ts';
import type { BatchWork } from './batch-work.ts';
import type { Contexts } from './context.ts';
import type { Effects } from './effects.ts';

export class StartTimers {
  constructor(
    private readonly partition: number,
    private readonly models: ModelCache,
    private readonly contexts: Contexts,
    private readonly wheel: TimerWheel,
    private readonly keys: KeyGenerator,
    private readonly effects: Effects,
    private readonly log: EngineLog,
  ) {}

  /** Replaces the armed timer start events of a process with those of `version`. */
  async schedule(account: string, bpmnProcessId: string, version: number, work: BatchWork): Promise<CommandReply> {
    const model = await this.models.process(account, bpmnProcessId, version);
    if (model === undefined) return { ok: false, code: 'NOT_FOUND', message: `No version ${version} of process '${bpmnProcessId}' is deployed.` };
    const starts = startTimersOf(model, Date.now());
    if (!starts.ok) return { ok: false, code: 'INVALID_ARGUMENT', message: starts.error };
    const armed = this.wheel.startTimersOf(account, bpmnProcessId);
    // A replayed schedule of an older version never replaces a newer one's.
    if (armed.some((old) => old.start!.version > version)) return { ok: true, value: { done: true } };
    for (const old of armed) {
      work.batch.timersDelete!.push(old.key);
      work.disarm.push(old.key);
    }
    for (const timer of starts.timers) {
      const key = this.keys.next();
      const start = { bpmnProcessId, version, elementId: timer.elementId, schedule: timer.schedule, firedCount: 0 };
      work.batch.timersUpsert!.push(startTimerRow(key, account, timer.dueAt, start));
      work.arm.push({ key, account, dueAt: timer.dueAt, start });
    }
    return { ok: true, value: { done: true } };
  }

  /** A timer start event fired: start an instance at that start event, and re-arm a cycle. */
  async fire(timer: ArmedTimer, work: BatchWork, condemned?: string): Promise<void> {
    const start = timer.start!;
    // A firing that could not be stored starts nothing; the schedule goes on.
    if (condemned !== undefined)
      this.log.warn({ partition: this.partition, timerKey: timer.key, bpmnProcessId: start.bpmnProcessId, reason: condemned }, 'timer start skipped');
    const ctx = condemned === undefined ? await this.contexts.load(timer.account, start, null) : undefined;
    if (ctx !== undefined) {
      const result = apply(null, { type: 'start', version: start.version, startEventId: start.elementId }, ctx);
      if (result.ok) this.effects.settle(timer.account, null, result, work, ctx.model);
    }
    const firedCount = start.firedCount + 1;
    const next = nextDue(start.schedule, timer.dueAt, firedCount, Date.now());
    if (next === null) {
      work.batch.timersDelete!.push(timer.key);
      return;
    }
    const again = { ...start, firedCount };
    work.batch.timersUpsert!.push(startTimerRow(timer.key, timer.account, next, again));
    work.arm.push({ key: timer.key, account: timer.account, dueAt: next, start: again });
  }
}
