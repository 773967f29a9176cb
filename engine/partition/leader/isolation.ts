// Poison-command isolation. A batch Postgres refuses for what it carries
// (BatchRejectedError) would be refused again on every retry and stall the
// partition for everyone. So the leader isolates: after recovery the
// refused batch's units (command keys, `timer:<key>`) go one per batch, and
// the one refused alone is condemned: answered with a rejection, its result
// logged so a replay gets the same answer, and — when the command itself
// was clean, so the instance's state is at fault — its instance set aside
// with an incident (Zeebe's banned instance). A command that throws while
// applied is condemned the same way. And a backlog that earlier leaders
// died on (the same oldest entry at two recoveries in a row) is replayed
// carefully: one command per batch, each attempt counted in Postgres before
// it starts, and one attempted too often is rejected.
import { streamIdIsAfter, type Queues } from '../../queue/index.ts';
import { BatchRejectedError, isUnavailable, StaleEpochError, StoreUnavailableError, type Store } from '../../store/index.ts';
import { LIMITS, storableText, valueProblem } from '../../limits.ts';
import { isJobCommand, type CommandReply, type EngineCommand } from '../commands.ts';
import type { EngineLog } from '../log.ts';
import type { BatchWork } from './batch-work.ts';
import { BATCH_MAX } from './intake.ts';
import type { Executor } from './execute.ts';
import type { Hot, HotInstances } from './hot-instances.ts';

/** How many one-unit batches a refused batch's isolation may take before the leader goes back to full batches. */
const ISOLATION_MAX = 2 * BATCH_MAX;
/** A replayed command begun this often by leaders that never finished it is rejected, not tried again. */
const MAX_ATTEMPTS = 3;

export class Isolation {
  /**
   * The units of a batch Postgres refused: until each has been through on
   * its own, or `isolationLeft` one-unit batches have gone, a batch carries
   * one unit, so a refusal names it.
   */
  private readonly suspects = new Set<string>();
  private isolationLeft = 0;
  /** Units refused on their own, or that threw while applied, with why: rejected instead of applied. */
  private readonly condemned = new Map<string, string>();
  /** Careful replay: stream entries up to this id go one per batch, each attempt counted in Postgres first. */
  private carefulUpTo: string | undefined;

  constructor(
    private readonly partition: number,
    private readonly store: Store,
    private readonly queues: Queues,
    private readonly hot: HotInstances,
    private readonly executor: Executor,
    private readonly log: EngineLog,
  ) {}

  /** A batch carries one unit of work: while a refused batch's units are isolated, or a backlog replayed carefully. */
  isolating(): boolean {
    return this.suspects.size > 0 || this.carefulUpTo !== undefined;
  }

  /** Nothing is set aside or replayed carefully: commands take the fast path (`runUnit` looks at both). */
  plain(): boolean {
    return this.condemned.size === 0 && this.carefulUpTo === undefined;
  }

  /** Why `unit` is condemned, if it is. */
  why(unit: string): string | undefined {
    return this.condemned.get(unit);
  }

  /** A one-unit batch is being built: isolation of a refused batch ends after ISOLATION_MAX of them. */
  countOneUnitBatch(): void {
    if (this.suspects.size > 0 && --this.isolationLeft <= 0) this.suspects.clear();
  }

  /**
   * Counts, in Postgres, the recoveries that began replaying from the same
   * oldest stream entry: a second one means the leader before died in that
   * backlog (a crash commits nothing and acknowledges nothing), so this
   * one replays it carefully, up to `replayUpTo`.
   */
  async checkReplay(replayUpTo: string): Promise<void> {
    const first = await this.queues.commands.firstEntryId(this.partition);
    this.carefulUpTo = undefined;
    if (first === '0') return;
    const marker = `@replay:${first}`;
    const recoveries = await this.store.commands.countAttempt(this.partition, marker);
    if (recoveries === 1) {
      await this.store.commands.clearAttempts(this.partition, marker);
      return;
    }
    this.carefulUpTo = replayUpTo;
    this.log.warn(
      { partition: this.partition, firstEntry: first, upTo: replayUpTo, recoveries },
      'replaying a backlog an earlier leader stopped in: one command per batch, attempts counted',
    );
  }

  /**
   * A unit off the fast path: counted first when replayed carefully (and
   * condemned once begun too often), rejected when condemned, else applied.
   */
  async runUnit(key: string, payload: EngineCommand, work: BatchWork, entryId?: string): Promise<CommandReply> {
    if (entryId !== undefined && this.carefulUpTo !== undefined && !streamIdIsAfter(entryId, this.carefulUpTo) && !this.condemned.has(key)) {
      const attempts = await this.store.commands.countAttempt(this.partition, key);
      if (attempts > MAX_ATTEMPTS) this.condemned.set(key, `${attempts - 1} leaders began it and stopped before committing it`);
    }
    const why = this.condemned.get(key);
    if (why !== undefined) return this.rejectCommand(key, payload, why, work);
    return this.executor.execute(payload, work);
  }

  /**
   * Answers a condemned command with a rejection. When the command itself
   * is clean, what failed was its instance's state: the instance is set
   * aside (an incident, no more commands but cancel), so it cannot poison
   * the next batch. Nothing the command would have done is applied.
   */
  private async rejectCommand(key: string, payload: EngineCommand, why: string, work: BatchWork): Promise<CommandReply> {
    const clean = valueProblem(payload, LIMITS.maxDepth + 2) === undefined;
    const target = clean ? await this.targetOf(payload) : undefined;
    this.log.warn(
      { partition: this.partition, commandKey: key, command: payload.kind, account: payload.account, reason: why, setAside: target?.hot.instance.key },
      'command rejected: the engine could not process it',
    );
    if (target === undefined)
      return { ok: false, code: 'INVALID_ARGUMENT', message: storableText(`The engine could not process this command: ${why}. Nothing of it was applied.`) };
    const message = storableText(`A command for this instance could not be processed: ${why}.`);
    await this.executor.applyTo(target.hot, { type: 'setAside', message, elementInstanceKey: target.elementInstanceKey }, work);
    return {
      ok: false,
      code: 'INVALID_STATE',
      message: storableText(
        `The engine could not process this command: ${why}. Nothing of it was applied, and process instance '${target.hot.instance.key}' was set aside with an incident.`,
      ),
    };
  }

  /** The instance (and element) a command addresses, if it exists. */
  private async targetOf(payload: EngineCommand): Promise<{ hot: Hot; elementInstanceKey?: string } | undefined> {
    if (payload.kind === 'cancel') {
      const hot = await this.hot.load(payload.account, payload.instanceKey);
      return hot && { hot };
    }
    if (!isJobCommand(payload)) return undefined;
    const instanceKey = await this.hot.instanceOfJob(payload.account, payload.jobKey);
    const hot = instanceKey === undefined ? undefined : await this.hot.load(payload.account, instanceKey);
    return hot && { hot, elementInstanceKey: hot.instance.jobs[payload.jobKey]?.elementInstanceKey };
  }

  /**
   * Postgres refused this batch for what it carries: its one unit is
   * condemned, or, with several, they are isolated after recovery.
   */
  blame(work: BatchWork, error: BatchRejectedError): void {
    const reason = `Postgres refused to store it (${error.message})`;
    if (work.units.length === 1) {
      this.condemned.set(work.units[0], reason);
      this.log.warn(
        { partition: this.partition, commandKey: work.units[0], err: error.message, sqlState: error.sqlState },
        'command refused by the store; it will be rejected',
      );
      return;
    }
    for (const unit of work.units) this.suspects.add(unit);
    this.isolationLeft = ISOLATION_MAX;
    this.log.warn(
      { partition: this.partition, commands: work.units.length, err: error.message, sqlState: error.sqlState },
      'batch refused by the store; isolating its commands',
    );
  }

  /**
   * Applying a unit threw. Unless the store or Redis is what failed (that
   * is retried), the unit is condemned when known; a throw in work no unit
   * owns isolates the batch's units, so the next throw names one.
   */
  blameThrow(work: BatchWork, unit: string | undefined, err: unknown): void {
    if (err instanceof StoreUnavailableError || err instanceof StaleEpochError || isUnavailable(err)) return;
    const reason = `the engine failed while applying it (${err instanceof Error ? err.message : String(err)})`;
    if (unit !== undefined) {
      this.condemned.set(unit, reason);
      this.log.warn({ partition: this.partition, commandKey: unit, err: reason }, 'applying a command threw; it will be rejected');
    } else {
      for (const u of work.units) this.suspects.add(u);
      this.isolationLeft = ISOLATION_MAX;
    }
  }

  /** The batch committed: its units are cleared, and a careful replay it finished ends. */
  published(work: BatchWork): void {
    // Nearly always both are empty: then a published batch costs nothing here.
    if (this.suspects.size > 0 || this.condemned.size > 0) {
      for (const unit of work.units) {
        this.suspects.delete(unit);
        this.condemned.delete(unit);
      }
    }
    if (this.carefulUpTo !== undefined && work.ack !== undefined && !streamIdIsAfter(this.carefulUpTo, work.ack.uptoId)) {
      // The backlog is through: its attempt counts are of no more use.
      this.carefulUpTo = undefined;
      this.store.commands.clearAttempts(this.partition).catch(() => {});
    }
  }
}
