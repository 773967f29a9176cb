// The effects a process instance and a case instance have alike: a job
// withdrawn, a timer armed or disarmed, a child process started, a command
// for another instance. Both kinds of instance turn them into the same
// batch writes and after-commit actions; only the timer's row is built
// from each kind's own document.
import type { Effect } from '../../runtime/types.ts';
import type { TimerWrite } from '../../store/index.ts';
import type { BatchWork } from './batch-work.ts';
import type { HotInstances } from './hot-instances.ts';
import type { Internal } from './internal-work.ts';

export type SharedEffect = Extract<Effect, { type: 'cancelJob' | 'scheduleTimer' | 'cancelTimer' | 'startChild' | 'sendCommand' }>;

/** Where the shared effects of an instance (or case) `instanceKey` of `account` go; `timerRow` builds the row of its timer. */
export interface EffectTarget {
  account: string;
  instanceKey: string;
  timerRow(timerKey: string): TimerWrite;
}

export function applySharedEffect(effect: SharedEffect, target: EffectTarget, work: BatchWork, hot: HotInstances, internal: Internal[]): void {
  const { batch } = work;
  const { account } = target;
  switch (effect.type) {
    case 'cancelJob':
      batch.jobsDelete!.push(effect.jobKey);
      work.remove.push({ account, jobKey: effect.jobKey });
      hot.dropJob(effect.jobKey);
      break;
    case 'scheduleTimer':
      batch.timersUpsert!.push(target.timerRow(effect.timerKey));
      work.arm.push({ key: effect.timerKey, account, instanceKey: target.instanceKey, dueAt: effect.dueAt });
      break;
    case 'cancelTimer':
      batch.timersDelete!.push(effect.timerKey);
      work.disarm.push(effect.timerKey);
      break;
    case 'startChild':
      internal.push({ kind: 'startChild', account, parentKey: target.instanceKey, effect });
      break;
    case 'sendCommand':
      internal.push({ kind: 'command', account, instanceKey: effect.instanceKey, command: effect.command });
      break;
  }
}
