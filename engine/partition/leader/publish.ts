// Publication after commit: once a batch has committed, and only then, the
// world may see it — timers armed and disarmed, jobs pushed, requeued and
// removed, replies sent and stream entries acknowledged in one publication,
// then the local callers answered; ended instances leave memory and the
// batch's results leave the not-yet-committed set; the signals its
// instances threw go to the other partitions, and the starts buffered
// messages are to make get their credits; the batch's tally goes to
// the metrics, once, so only published work is counted; and its webhook
// events go to the process's dispatcher (webhook-taker.ts).
import type { EngineMetrics } from '../../metrics.ts';
import type { Publication, Queues } from '../../queue/index.ts';
import { webhookBatchKey } from '../../store/index.ts';
import type { TimerWheel } from '../timer-wheel.ts';
import type { WebhookTakerSlot } from '../webhook-taker.ts';
import type { BatchWork } from './batch-work.ts';
import type { HotInstances } from './hot-instances.ts';
import type { Isolation } from './isolation.ts';
import type { CommandResults } from './results.ts';
import type { SignalOutbox } from './signals.ts';
import type { BufferedStarts } from './buffered-starts.ts';

export class Publisher {
  constructor(
    private readonly partition: number,
    private readonly metrics: EngineMetrics,
    private readonly queues: Queues,
    private readonly wheel: TimerWheel,
    private readonly hot: HotInstances,
    private readonly results: CommandResults,
    private readonly isolation: Isolation,
    private readonly signals: SignalOutbox,
    private readonly bufferedStarts: BufferedStarts,
    private readonly webhooks?: WebhookTakerSlot,
  ) {}

  /** Committed: now, and only now, the world may see it. */
  async publish(work: BatchWork): Promise<void> {
    this.isolation.published(work);
    for (const key of work.disarm) this.wheel.disarm(key);
    for (const timer of work.arm) this.wheel.arm(timer);
    const byAccount = new Map<string, string[]>();
    for (const { account, jobKey } of work.remove) (byAccount.get(account) ?? byAccount.set(account, []).get(account)!).push(jobKey);
    const publication: Publication = {
      push: work.push,
      variables: work.variables,
      requeue: work.requeue,
      remove: [...byAccount].map(([account, jobKeys]) => ({ account, jobKeys })),
      replies: work.replies,
    };
    if (work.ack !== undefined) publication.ack = work.ack;
    // Ended instances stay in memory until now: a command for one in the
    // next batch must not find it missing and read its stale row instead.
    for (const key of work.ended) this.hot.forget(key);
    this.results.published(work);
    await this.queues.publish(publication);
    // After the publication, as for stream replies: a started instance's job is queued before its caller hears of it.
    for (const { command, reply } of work.answers) command.resolve(structuredClone(reply));
    if (work.signals.length > 0) this.signals.dispatch(work.signals);
    if (work.bufferedStarts.length > 0) this.bufferedStarts.dispatch(work.bufferedStarts);
    this.metrics.batchPublished(this.partition, work.tally);
    // Held for the dispatcher of this process: its events are sent from memory. A
    // dispatcher detached meanwhile leaves the row to lapse and be claimed by any.
    const { batch } = work;
    if (batch.webhookHoldMs) this.webhooks?.current?.take({ key: webhookBatchKey(batch), events: batch.events! });
  }
}
