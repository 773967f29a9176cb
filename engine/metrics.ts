// What the engine tells a metrics system, without knowing which one: the
// service wires this interface to prom-client (api/metrics/), and the
// default does nothing. The leader counts into a batch's tally as it
// applies commands (plain integers) and reports the tally once, after the
// batch is published, so only committed work is counted, a batch that is
// retried after a failure is not counted twice, and the hot path never
// touches the metrics system per record. Labels stay bounded: a job's kind
// is a category of its element, never its type.
import type { ElementType } from './model/types.ts';

/** A job's category (the `job_kind` label): from the element that waits on it, never the job type a modeller chose. */
export type JobKind = 'service' | 'user' | 'script' | 'message' | 'event' | 'decision';

export const JOB_KINDS: readonly JobKind[] = ['service', 'user', 'script', 'message', 'event', 'decision'];

/** The reasons a command is refused (the `reason` label): the leader's rejection codes and the command client's own. */
export type RejectReason = 'not_found' | 'invalid_state' | 'invalid_argument' | 'backpressure' | 'timeout';

/** The kind of job an element of this type waits on. */
export function jobKindOfElement(type: ElementType | undefined): JobKind {
  switch (type) {
    case 'userTask':
      return 'user';
    case 'scriptTask':
      return 'script';
    case 'receiveTask':
      return 'message';
    case 'businessRuleTask':
      return 'decision';
    case 'intermediateCatchEvent':
    case 'intermediateThrowEvent':
    case 'boundaryEvent':
    case 'endEvent':
    case 'startEvent':
      return 'event';
    default:
      return 'service';
  }
}

/**
 * The kind of a job known only by its type (queued by an older leader, or
 * rebuilt from Postgres): from the names SPEC.md gives the engine's own
 * waits; a task definition's type is a service job.
 */
export function jobKindOfType(type: string): JobKind {
  if (type === 'userTask') return 'user';
  if (type.startsWith('script:')) return 'script';
  if (type.startsWith('message:')) return 'message';
  if (type.startsWith('event:')) return 'event';
  return 'service';
}

/** Counts by job kind, indexed as JOB_KINDS. */
export type KindCounts = [number, number, number, number, number, number];

const KIND_INDEX = new Map<string, number>(JOB_KINDS.map((kind, i) => [kind, i]));

/** The index of a kind in JOB_KINDS and KindCounts; a value that is no kind (a payload from elsewhere) counts as a service job. */
export function kindIndex(kind: string): number {
  return KIND_INDEX.get(kind) ?? 0;
}

/** What one batch did, counted while it was built; reported once it is published. */
export class BatchTally {
  /** When the batch began to be built (performance.now()). */
  readonly began = performance.now();
  /** Commands the batch took (from its stream and from this process). */
  commands = 0;
  instancesStarted = 0;
  instancesCompleted = 0;
  instancesTerminated = 0;
  /** Case instances (CMMN), counted apart so the process series keep meaning processes. */
  casesStarted = 0;
  casesCompleted = 0;
  casesTerminated = 0;
  /** Seconds from start to end of each instance that ended in the batch. */
  readonly instanceDurations: number[] = [];
  readonly jobsCreated: KindCounts = [0, 0, 0, 0, 0, 0];
  readonly jobsCompleted: KindCounts = [0, 0, 0, 0, 0, 0];
  readonly jobsFailed: KindCounts = [0, 0, 0, 0, 0, 0];
  incidentsCreated = 0;
  /** Commands the leader answered with a rejection, by reason; undefined until the first. */
  rejected: Partial<Record<RejectReason, number>> | undefined;

  reject(code: string): void {
    const reason = code.toLowerCase() as RejectReason;
    this.rejected ??= {};
    this.rejected[reason] = (this.rejected[reason] ?? 0) + 1;
  }
}

/** A job handed to a worker: when it was queued (absent when unknown) and when it was activated, epoch ms. */
export interface ActivationTiming {
  queuedAt?: number;
  activatedAt: number;
  kind?: JobKind;
  type: string;
}

/** What a scrape reads from the engine at that moment. */
export interface EngineGauges {
  /** Partitions of the installation. */
  partitions: number;
  /** Whether this process runs partition leaders at all (roles all and engine). */
  leads: boolean;
  /** The partitions this process leads, with the commands waiting on each (undefined when the queues did not answer in time). */
  led: { partition: number; pending: number | undefined }[];
  /** Open incidents on the partitions this process leads; undefined when Postgres did not answer in time. */
  incidentsOpen: number | undefined;
}

export interface EngineMetrics {
  /** A batch of `partition` was committed and published. */
  batchPublished(partition: number, tally: BatchTally): void;
  /** Jobs of one type were handed to a worker. */
  jobsActivated(jobs: readonly ActivationTiming[]): void;
  /** A command was refused before any leader answered it (backpressure, no answer in time). */
  commandRejected(reason: RejectReason): void;
  /** This process became the leader of a partition. */
  leaderChanged(partition: number): void;
}

export const NO_METRICS: EngineMetrics = {
  batchPublished() {},
  jobsActivated() {},
  commandRejected() {},
  leaderChanged() {},
};
