// Recovery, at takeover and after any failure: the leader's memory and its
// partition's queues are rebuilt from Postgres before anything else is
// applied. Hot instances and live case instances are reloaded, the jobs
// queues rebuilt (a Redis flush loses nothing), timers armed again, and the
// stream read again from its start so unacknowledged commands are replayed
// — carefully, when earlier leaders died in that backlog
// (Isolation.checkReplay).
import { visibleVariables } from '../../runtime/behavior/variables.ts';
import type { Queues, StoredJob } from '../../queue/index.ts';
import { offerOfJobRow, StaleEpochError, startTimerOf, type Store } from '../../store/index.ts';
import type { FlushMarker } from '../flush-marker.ts';
import type { TimerWheel } from '../timer-wheel.ts';
import type { HotInstances } from './hot-instances.ts';
import type { CommandIntake } from './intake.ts';
import type { Internal } from './internal-work.ts';
import type { Isolation } from './isolation.ts';
import type { MessageState } from './messages.ts';
import type { BufferedStarts } from './buffered-starts.ts';
import type { SignalOutbox } from './signals.ts';
import type { CommandResults } from './results.ts';

export interface RecoveryParts {
  partition: number;
  epoch: number;
  store: Store;
  queues: Queues;
  marker: FlushMarker;
  /** Tells the group commit this leader recovered: after a failed batch it refuses the partition's batches until then. */
  resumeCommits: () => void;
  hot: HotInstances;
  internal: Internal[];
  wheel: TimerWheel;
  results: CommandResults;
  isolation: Isolation;
  intake: CommandIntake;
  messages: MessageState;
  /** Thrown signals whose delivery a committed batch began (extension): delivered again. */
  signals: SignalOutbox;
  /** Buffered message starts a committed batch began (extension): taken up again. */
  bufferedStarts: BufferedStarts;
}

/**
 * Takeover: rebuild this partition's queues from Postgres (a Redis flush
 * loses nothing), reload its timers, and read the stream from the start
 * so unacknowledged commands are replayed.
 */
export async function recover(parts: RecoveryParts): Promise<void> {
  const { partition, epoch, store, queues, hot, internal, wheel } = parts;
  // Rebuilding replaces what Redis holds for the partition, so a leader that
  // was superseded (and has not noticed yet) must not do it.
  const lease = (await store.leases.listLeases()).find((l) => l.partition === partition);
  if (lease?.epoch !== epoch) throw new StaleEpochError(partition, epoch, lease?.epoch ?? null);
  // Every batch from before is settled (the loop drained them): what comes next is built on what Postgres holds.
  parts.resumeCommits();
  hot.clear();
  // Timers that fired but were not committed are armed again below from Postgres; firing them twice would be wrong.
  for (let i = internal.length - 1; i >= 0; i--) {
    const item = internal[i];
    if (item.kind === 'command' && item.command.type === 'fireTimer') internal.splice(i, 1);
  }
  const instances = await store.instances.loadPartitionInstances(partition, { activeOnly: true });
  for (const row of instances) hot.remember(row.account, row.document, row.parentKey);
  for (const row of await store.caseInstances.loadPartitionCases(partition)) hot.rememberCase(row.account, row.document, row.parentKey);
  const { outbox, pendingStarts } = await parts.messages.recover(store, partition, hot);
  parts.signals.recovered(outbox);
  parts.bufferedStarts.dispatch(pendingStarts);
  const jobs = await store.jobs.loadPartitionJobs(partition);
  const stored: StoredJob[] = [];
  for (const job of jobs) {
    const owner = hot.get(job.instanceKey);
    // A case's job sees the case file (its one scope).
    const caseFile = owner === undefined ? hot.getCase(job.instanceKey)?.instance.variables : undefined;
    if ((owner === undefined && caseFile === undefined) || job.state === 'FAILED') continue;
    stored.push({
      ...offerOfJobRow(job),
      account: job.account,
      partition,
      variables: { ...(caseFile ?? visibleVariables(owner!.instance, job.elementInstanceKey)) },
      // Its row's creation: a job offered again after a failure waited less than this says.
      queuedAt: job.createdAt.getTime(),
      ...(job.state === 'ACTIVATED' ? { activation: { worker: job.worker ?? '', at: job.activatedAt?.getTime() ?? Date.now() } } : {}),
    });
  }
  // Marker first: a flush from here on is either undone by this rebuild or noticed later.
  await parts.marker.set(partition, epoch);
  await queues.jobs.rebuild(partition, stored);
  for (const timer of await store.timers.loadDueTimers(partition, new Date('9999-12-31T00:00:00Z'), { limit: 100_000 })) {
    if (timer.instanceKey) wheel.arm({ key: timer.key, account: timer.account, instanceKey: timer.instanceKey, dueAt: timer.dueAt.getTime() });
    else wheel.arm({ key: timer.key, account: timer.account, dueAt: timer.dueAt.getTime(), start: startTimerOf(timer) });
  }
  parts.results.replayUpTo = await queues.commands.lastEntryId(partition);
  await parts.isolation.checkReplay(parts.results.replayUpTo);
  parts.intake.restart();
}
