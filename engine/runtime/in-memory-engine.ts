// A single-process driver around apply(): holds instances and job queues in
// memory and plays the part the partition leader and Redis queues play in
// production. It backs `orca simulate`, the core benchmark and the runtime
// tests; the durable engine replaces it, not the state machine.
import type { ProcessModel } from '../model/types.ts';
import { apply } from './apply.ts';
import { visibleVariables } from './behavior/variables.ts';
import type { ApplyResult, Command, HistoryRecord, JobOffer, ProcessInstance, Variables } from './types.ts';

export interface ActivatedJob extends JobOffer {
  variables: Variables;
}

export interface InMemoryEngineOptions {
  /** Clock; defaults to Date.now. Tests pass a fake one. */
  now?: () => number;
  stepBudget?: number;
  /** Keep every history record per instance (tests, simulate); off for benchmarks. */
  keepHistory?: boolean;
  /** Forget instances once they complete or terminate (benchmarks), so memory stays flat. */
  forgetEnded?: boolean;
}

export class CommandRejected extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class InMemoryEngine {
  private readonly models = new Map<string, ProcessModel>();
  private readonly instances = new Map<string, ProcessInstance>();
  /** job key → instance key, for routing job commands. */
  private readonly jobOwners = new Map<string, string>();
  /** job type → queued job offers (FIFO). */
  private readonly queues = new Map<string, JobOffer[]>();
  private readonly histories = new Map<string, HistoryRecord[]>();
  private counter = 2251799813685248; // 2^51, so keys look like the durable engine's 64-bit keys
  private readonly now: () => number;

  constructor(private readonly options: InMemoryEngineOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  deploy(process: ProcessModel): void {
    this.models.set(process.id, process);
  }

  private nextKey = (): string => String(++this.counter);

  private context(model: ProcessModel) {
    return { model, nextKey: this.nextKey, now: this.now, stepBudget: this.options.stepBudget };
  }

  /** Starts an instance of the deployed process `bpmnProcessId`; returns the instance key. */
  start(bpmnProcessId: string, variables: Variables = {}): string {
    const model = this.models.get(bpmnProcessId);
    if (model === undefined) throw new CommandRejected('NOT_FOUND', `No process '${bpmnProcessId}' is deployed.`);
    return this.settle(apply(null, { type: 'start', variables }, this.context(model))).key;
  }

  /** Pops up to `max` jobs of `type`, with the variables visible to each now. */
  activate(type: string, max: number): ActivatedJob[] {
    const queue = this.queues.get(type);
    const jobs: ActivatedJob[] = [];
    while (queue !== undefined && queue.length > 0 && jobs.length < max) {
      const offer = queue.shift()!;
      const instance = this.instances.get(offer.processInstanceKey);
      // Offers of cancelled or completed jobs are dropped lazily here.
      if (instance === undefined || instance.jobs[offer.key] === undefined) continue;
      jobs.push({ ...offer, variables: { ...visibleVariables(instance, offer.elementInstanceKey) } });
    }
    return jobs;
  }

  completeJob(jobKey: string, variables?: Variables): void {
    this.jobCommand(jobKey, { type: 'completeJob', jobKey, variables });
  }

  failJob(jobKey: string, retries: number, errorMessage?: string): void {
    this.jobCommand(jobKey, { type: 'failJob', jobKey, retries, errorMessage });
  }

  cancel(instanceKey: string): void {
    const instance = this.instances.get(instanceKey);
    if (instance === undefined) throw new CommandRejected('NOT_FOUND', `Process instance '${instanceKey}' not found.`);
    this.settle(apply(instance, { type: 'cancel' }, this.context(this.models.get(instance.bpmnProcessId)!)));
  }

  instance(key: string): ProcessInstance | undefined {
    return this.instances.get(key);
  }

  history(key: string): HistoryRecord[] {
    return this.histories.get(key) ?? [];
  }

  /** Number of queued offers of `type` (stale ones included). */
  queued(type: string): number {
    return this.queues.get(type)?.length ?? 0;
  }

  private jobCommand(jobKey: string, command: Command): void {
    const owner = this.jobOwners.get(jobKey);
    const instance = owner === undefined ? undefined : this.instances.get(owner);
    if (instance === undefined) throw new CommandRejected('NOT_FOUND', `Job '${jobKey}' not found.`);
    this.settle(apply(instance, command, this.context(this.models.get(instance.bpmnProcessId)!)));
  }

  private settle(result: ApplyResult): ProcessInstance {
    if (!result.ok) throw new CommandRejected(result.code, result.message);
    const instance = result.instance;
    this.instances.set(instance.key, instance);
    if (this.options.keepHistory) {
      const history = this.histories.get(instance.key);
      if (history === undefined) this.histories.set(instance.key, result.records);
      else history.push(...result.records);
    }
    for (const effect of result.effects) {
      if (effect.type === 'enqueueJob') {
        this.jobOwners.set(effect.job.key, instance.key);
        let queue = this.queues.get(effect.job.type);
        if (queue === undefined) this.queues.set(effect.job.type, (queue = []));
        queue.push(effect.job);
      } else {
        this.jobOwners.delete(effect.jobKey);
      }
    }
    // Completed jobs no longer route anywhere.
    for (const record of result.records) if (record.type === 'JOB_COMPLETED' && record.jobKey) this.jobOwners.delete(record.jobKey);
    if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') {
      for (const jobKey of Object.keys(instance.jobs)) this.jobOwners.delete(jobKey);
      if (this.options.forgetEnded) this.instances.delete(instance.key);
    }
    return instance;
  }
}
