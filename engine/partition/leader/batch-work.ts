// One batch of a leader, from building to publication: the rows it
// commits (a store Batch) and what it does once committed — jobs pushed,
// requeued or removed, timers armed or disarmed, replies and answers given,
// stream entries acknowledged, ended instances forgotten.
import type { Publication, QueuedJob, Reply } from '../../queue/index.ts';
import type { Batch } from '../../store/index.ts';
import { BatchTally } from '../../metrics.ts';
import type { CommandReply } from '../commands.ts';
import type { ArmedTimer } from '../timer-wheel.ts';
import type { LocalCommand } from './intake.ts';
import type { PendingStart } from './buffered-starts.ts';
import type { ThrownSignal } from './signals.ts';

export class BatchWork {
  readonly batch: Batch;
  readonly push: QueuedJob[] = [];
  readonly requeue: QueuedJob[] = [];
  readonly remove: { account: string; jobKey: string }[] = [];
  readonly arm: ArmedTimer[] = [];
  readonly disarm: string[] = [];
  readonly replies: Reply[] = [];
  /** Answers to local commands, given once the publication is out. */
  readonly answers: { command: LocalCommand; reply: CommandReply }[] = [];
  readonly ended: string[] = [];
  /** Signals thrown by this batch's instances (extension), for the other partitions once it committed. */
  readonly signals: ThrownSignal[] = [];
  /** Message-started instances this batch ended with a buffered message to start next (extension), charged once it committed. */
  readonly bufferedStarts: PendingStart[] = [];
  /** What this batch carried that could be to blame if Postgres refuses it: command keys and `timer:<key>`. */
  readonly units: string[] = [];
  /** Instances whose waiting jobs must see their new variables (instance key → account). */
  readonly changed = new Map<string, string>();
  /** Those jobs' variables as this batch leaves them. */
  variables: NonNullable<Publication['variables']> = [];
  /** The stream entries this batch consumed. */
  ack: Publication['ack'];
  /**
   * The results of this batch's fresh local commands, logged as ONE
   * command-log row under `key` instead of a row each. Their keys were made
   * up for one call in this process and no client knows them: the only one
   * who can ask again is this process — the leader retrying after a commit
   * that may have happened, or the caller re-sending over the stream when
   * the leader stopped — and it asks by the batch's key (LocalCommand.batchKey,
   * EngineCommand.batchKey). Most of the command log's rows were these.
   */
  logged: { key: string; results: Record<string, CommandReply> } | undefined;
  /** What the batch did, for the metrics once it is published. */
  readonly tally = new BatchTally();
  /** When the batch was begun (epoch ms): the time its jobs are stamped as queued at. */
  readonly at = Date.now();

  constructor(partition: number, epoch: number) {
    this.batch = {
      partition,
      epoch,
      instances: [],
      jobsUpsert: [],
      jobsDelete: [],
      tasksCompleted: [],
      timersUpsert: [],
      timersDelete: [],
      incidentsInsert: [],
      messagesInsert: [],
      messagesDelete: [],
      history: [],
      commands: [],
      events: [],
    };
  }
}
