// Effects to rows: what an applied command did to its instance becomes the
// batch's writes (the instance document, history, jobs, timers, incidents,
// all built by store/runtime-rows.ts, and the webhook events of the change,
// store/engine-events.ts) and its after-commit actions (jobs to
// push, requeue or remove, timers to arm or disarm), and the work it causes
// on other instances (child starts, parent/child messages) is queued for
// the same batch. Message subscriptions opened and closed go to the
// leader's MessageState, and so do the starts and ends of message-started
// instances (which hold their correlation key), thrown signals to its
// SignalOutbox (extension). What it did is counted into the batch's tally
// for the metrics (plain integers; reported once the batch is published).
import { jobKindOfElement, kindIndex } from '../../metrics.ts';
import type { ProcessModel } from '../../model/types.ts';
import { visibleVariables } from '../../runtime/behavior/variables.ts';
import type { ApplyResult, Variables } from '../../runtime/types.ts';
import type { Publication, QueuedJob } from '../../queue/index.ts';
import {
  enteredIncident,
  incidentCreatedEvent,
  incidentRow,
  instanceEndedEvent,
  instanceIncidentEvent,
  jobRow,
  offeredJobRow,
  timerRow,
  userTaskEvent,
} from '../../store/index.ts';
import type { BatchWork } from './batch-work.ts';
import type { HotInstances } from './hot-instances.ts';
import type { Internal } from './internal-work.ts';
import type { MessageState } from './messages.ts';
import { applySharedEffect, type EffectTarget } from './shared-effects.ts';
import type { SignalOutbox } from './signals.ts';

export type Applied = Extract<ApplyResult, { ok: true }>;

export class Effects {
  constructor(
    private readonly partition: number,
    private readonly hot: HotInstances,
    /** Work for other instances, run later in the same batch (internal-work.ts). */
    private readonly internal: Internal[],
    /** Message subscriptions opened and closed (extension). */
    private readonly messages: MessageState,
    /** Signals thrown by throw and end events (extension). */
    private readonly signals: SignalOutbox,
  ) {}

  /** Turns an applied command (against `model`, the instance's process) into writes and after-commit actions. */
  settle(account: string, parentKey: string | null, result: Applied, work: BatchWork, model: ProcessModel): void {
    const { instance, records, effects } = result;
    const batch = work.batch;
    const tally = work.tally;
    this.hot.keep(account, instance, parentKey);
    batch.instances!.push({ account, document: instance, parentKey });
    const events = batch.events!;
    let firstIncident = true;
    for (const record of records) {
      batch.history!.push({ account, instanceKey: instance.key, record });
      switch (record.type) {
        case 'INCIDENT_CREATED': {
          tally.incidentsCreated++;
          const incident = instance.incidents[record.incidentKey!];
          batch.incidentsInsert!.push(incidentRow(account, instance, incident));
          events.push(incidentCreatedEvent(account, instance, incident));
          // The first incident of this apply is the one that put the instance in INCIDENT, if it was not already.
          if (firstIncident) {
            firstIncident = false;
            if (enteredIncident(instance, records)) events.push(instanceIncidentEvent(account, instance, incident));
          }
          if (incident.jobKey !== undefined) {
            // The job that ran out of retries: stored FAILED (with retries 0) while its incident is open.
            const job = instance.jobs[incident.jobKey];
            if (job !== undefined) batch.jobsUpsert!.push(jobRow(account, instance, job));
            work.remove.push({ account, jobKey: incident.jobKey });
          }
          break;
        }
        case 'JOB_COMPLETED': {
          const elementType = model.elements[record.elementId!]?.type;
          tally.jobsCompleted[kindIndex(jobKindOfElement(elementType))]++;
          batch.jobsDelete!.push(record.jobKey!);
          if (elementType === 'userTask') {
            events.push(userTaskEvent(account, instance, record));
            batch.tasksCompleted!.push({
              key: record.jobKey!,
              account,
              instanceKey: instance.key,
              bpmnProcessId: instance.bpmnProcessId,
              processVersion: instance.version,
              elementId: record.elementId!,
              elementInstanceKey: record.elementInstanceKey!,
              completedAt: record.at,
            });
          }
          work.remove.push({ account, jobKey: record.jobKey! });
          this.hot.dropJob(record.jobKey!);
          break;
        }
        case 'JOB_CREATED': {
          const elementType = model.elements[record.elementId!]?.type;
          tally.jobsCreated[kindIndex(jobKindOfElement(elementType))]++;
          if (elementType === 'userTask') events.push(userTaskEvent(account, instance, record));
          break;
        }
        case 'JOB_FAILED':
          tally.jobsFailed[kindIndex(jobKindOfElement(model.elements[record.elementId!]?.type))]++;
          break;
        case 'PROCESS_INSTANCE_STARTED':
          tally.instancesStarted++;
          break;
        case 'PROCESS_INSTANCE_COMPLETED':
        case 'PROCESS_INSTANCE_TERMINATED':
          if (record.type === 'PROCESS_INSTANCE_COMPLETED') tally.instancesCompleted++;
          else tally.instancesTerminated++;
          tally.instanceDurations.push(Math.max(0, (instance.endedAt ?? record.at) - instance.startedAt) / 1000);
          events.push(instanceEndedEvent(account, instance, record));
          break;
      }
    }
    let target: EffectTarget | undefined;
    for (const effect of effects) {
      switch (effect.type) {
        case 'enqueueJob': {
          const existed = this.hot.ownJob(effect.job.key, instance.key);
          batch.jobsUpsert!.push(offeredJobRow(account, effect.job, 'ACTIVATABLE', instance.jobs[effect.job.key]?.errorMessage));
          const queued: QueuedJob = {
            ...effect.job,
            account,
            partition: this.partition,
            variables: { ...visibleVariables(instance, effect.job.elementInstanceKey) },
            queuedAt: work.at,
            kind: jobKindOfElement(model.elements[effect.job.elementId]?.type),
          };
          (existed ? work.requeue : work.push).push(queued);
          break;
        }
        case 'holdJob': {
          const job = instance.jobs[effect.jobKey];
          if (job !== undefined) batch.jobsUpsert!.push(jobRow(account, instance, job));
          break;
        }
        case 'cancelJob':
        case 'scheduleTimer':
        case 'cancelTimer':
        case 'startChild':
        case 'sendCommand':
          target ??= { account, instanceKey: instance.key, timerRow: (key) => timerRow(account, instance, instance.timers[key]) };
          applySharedEffect(effect, target, work, this.hot, this.internal);
          break;
        case 'openSubscription':
          this.messages.opened(account, instance, effect.subscription);
          break;
        case 'closeSubscription':
          this.messages.closed(account, effect.subscription);
          break;
        case 'throwSignal':
          this.signals.thrown(account, effect.name, effect.variables, instance.signalGeneration ?? 0, work);
          break;
      }
    }
    this.messages.settled(account, instance, records, work);
    if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') work.ended.push(instance.key);
    else if (records.some((r) => r.type === 'JOB_COMPLETED' || r.type === 'DECISION_EVALUATED' || r.type === 'ELEMENT_COMPLETED'))
      work.changed.set(instance.key, account);
  }

  /**
   * Jobs still waiting in an instance whose variables this batch changed get
   * their queued variables refreshed, so a worker activating them sees the
   * variables as they are at activation (jobs created in this batch were
   * pushed with current ones).
   */
  waitingJobVariables(work: BatchWork): NonNullable<Publication['variables']> {
    const out: { account: string; jobKey: string; variables: Variables }[] = [];
    if (work.changed.size === 0) return out;
    const fresh = new Set(work.push.map((j) => j.key));
    for (const [instanceKey, account] of work.changed) {
      const instance = this.hot.get(instanceKey)?.instance;
      if (instance === undefined) {
        this.caseJobVariables(instanceKey, account, fresh, out);
        continue;
      }
      for (const job of Object.values(instance.jobs)) {
        if (job.state !== 'ACTIVATABLE' || fresh.has(job.key)) continue;
        out.push({ account, jobKey: job.key, variables: { ...visibleVariables(instance, job.elementInstanceKey) } });
      }
    }
    return out;
  }

  /** A case's waiting jobs see its case file (its one scope). */
  private caseJobVariables(caseKey: string, account: string, fresh: Set<string>, out: { account: string; jobKey: string; variables: Variables }[]): void {
    const instance = this.hot.getCase(caseKey)?.instance;
    if (instance === undefined) return;
    for (const job of Object.values(instance.jobs)) {
      if (job.state === 'ACTIVATABLE' && !fresh.has(job.key)) out.push({ account, jobKey: job.key, variables: { ...instance.variables } });
    }
  }
}
