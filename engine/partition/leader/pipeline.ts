// The leader's commit pipeline: one batch commits while the next is built.
// A built batch is sealed (the next one goes on changing the same instance
// documents), handed to the shard's group commit, and published once it
// and the batch before it have committed, in batch order; the loop waits
// only for the batch before. A failure anywhere is recorded for the loop,
// which recovers, and the batch's local commands wait for after recovery.
// With a tracer, a batch carrying sampled commands is traced through its
// apply, commit and publish phases (batch-trace.ts).
import { context } from '@opentelemetry/api';
import { BatchRejectedError, sealBatch, type SealedBatch } from '../../store/index.ts';
import type { StreamEntry } from '../../queue/index.ts';
import type { Tracer } from '../../tracing.ts';
import { BatchTrace } from './batch-trace.ts';
import type { BatchBuilder } from './build-batch.ts';
import type { BatchWork } from './batch-work.ts';
import type { CommandIntake, LocalCommand } from './intake.ts';
import type { Isolation } from './isolation.ts';
import type { Publisher } from './publish.ts';

export class CommitPipeline {
  /**
   * The newest batch handed to the commit and not yet published: the loop
   * builds the next one meanwhile, on the state in memory (which includes
   * this one's uncommitted effects). Settles once it is published or failed.
   */
  private pipeline: Promise<void> = Promise.resolve();
  /** Why a batch in the pipeline failed, for the loop to recover from. */
  private broken: { error: unknown } | undefined;
  /**
   * A batch failed since the pipeline was last drained. Unlike `broken`,
   * which the loop takes as soon as it sees it, this lasts until every
   * batch built on the failed one has settled: only the first is to blame.
   */
  private failedSinceDrain = false;
  /** Since when this leader has not been able to commit (readiness); undefined while it can. */
  failingSince: number | undefined;

  constructor(
    private readonly intake: CommandIntake,
    private readonly builder: BatchBuilder,
    private readonly isolation: Isolation,
    private readonly publisher: Publisher,
    /** Commits a batch: the shard's group commit, which keeps a partition's batches in order. */
    private readonly commit: (batch: SealedBatch) => Promise<void>,
    private readonly partition: number,
    /** Tracing on: batches carrying sampled commands are traced. */
    private readonly tracer?: Tracer,
  ) {}

  get isBroken(): boolean {
    return this.broken !== undefined;
  }

  /** A batch in the pipeline failed: the loop recovers (or stops on a lost lease) as if its own step had thrown. */
  throwIfBroken(): void {
    const broken = this.broken;
    if (broken === undefined) return;
    this.broken = undefined;
    throw broken.error;
  }

  /** Waits until no batch is being committed or published; their failures are already recorded in `broken`. */
  async drain(): Promise<void> {
    await this.pipeline;
    this.broken = undefined;
    this.failedSinceDrain = false;
  }

  /**
   * Builds a batch from the commands (applied in memory), hands it to the
   * commit, and returns once the batch before it is published: so one batch
   * commits while the next is built, and never more than that. The batch's
   * own commit and publication go on in `pipeline`, in batch order.
   */
  async process(entries: StreamEntry[], local: LocalCommand[]): Promise<void> {
    const isolated = this.isolation.isolating();
    if (isolated) {
      ({ entries, local } = this.intake.oneUnit(entries, local));
      this.isolation.countOneUnitBatch();
    }
    const traced = this.tracer === undefined ? undefined : BatchTrace.begin(this.tracer, this.partition, entries, local);
    let work: BatchWork;
    try {
      // Traced, it is applied in the apply span's context, so what the leader logs meanwhile carries its ids.
      work = await (traced === undefined
        ? this.builder.build(entries, local, isolated)
        : context.with(traced.enter('apply'), () => this.builder.build(entries, local, isolated)));
    } catch (err) {
      traced?.end(0, err);
      this.intake.giveBack(local, err);
      throw err;
    }
    const previous = this.pipeline;
    let sealed: SealedBatch;
    try {
      // Sealed now: the next batch goes on changing the same instance documents.
      sealed = sealBatch(work.batch);
    } catch (err) {
      // A value JSON cannot carry is as good as refused by Postgres.
      const refused = new BatchRejectedError(`the batch could not be encoded: ${err instanceof Error ? err.message : String(err)}`);
      this.isolation.blame(work, refused);
      traced?.end(work.tally.commands, refused);
      this.intake.giveBack(local, refused);
      throw refused;
    }
    traced?.enter('commit');
    // The commit group sends it only after the batch before it committed, and fails it if that one failed.
    const committed = this.commit(sealed);
    this.pipeline = this.publishWhenCommitted(work, local, committed, previous, traced);
    await previous;
  }

  /** Settles without throwing: a failure is recorded in `broken` for the loop, and wakes it. */
  private async publishWhenCommitted(
    work: BatchWork,
    local: LocalCommand[],
    committed: Promise<void>,
    previous: Promise<void>,
    traced: BatchTrace | undefined,
  ): Promise<void> {
    let failure: { error: unknown } | undefined;
    try {
      await committed;
    } catch (error) {
      failure = { error };
    }
    // In batch order, failed or not: a job pushed by the batch before must be
    // queued before this one removes it, and a batch refused because the one
    // before it was must hear of that one's failure before it takes blame.
    await previous;
    try {
      if (failure !== undefined) throw failure.error;
      if (this.broken !== undefined) throw this.broken.error;
      this.failingSince = undefined;
      traced?.enter('publish');
      await this.publisher.publish(work);
      traced?.end(work.tally.commands);
    } catch (err) {
      traced?.end(work.tally.commands, err);
      // Only the first batch to fail is to blame: the ones behind it fail because they were built on it.
      if (err instanceof BatchRejectedError && !this.failedSinceDrain) this.isolation.blame(work, err);
      this.failedSinceDrain = true;
      this.intake.giveBack(local, err);
      this.broken ??= { error: err };
      this.intake.wakeUp();
    }
  }
}
