// Where a process's partition leaders hand their committed batches' webhook
// events to the process's own dispatcher (api/webhooks), so that events are
// sent from memory rather than read back from the outbox. The dispatcher
// attaches itself once it runs and detaches before it stops; with none
// attached, a batch's outbox row is written unheld and any dispatcher of the
// installation claims it (webhook_batches).
import type { CommittedWebhookEvents } from '../store/index.ts';

export interface WebhookTaker {
  /** How long a batch's outbox row is held for this taker; 0 when it takes no more now (its backlog is full). */
  holdMs(): number;
  /** A batch that was written with a hold committed: its events are this taker's to send. */
  take(committed: CommittedWebhookEvents): void;
}

/** One per process, shared by its leaders: the taker attached now, if any. */
export class WebhookTakerSlot {
  current: WebhookTaker | undefined;

  attach(taker: WebhookTaker | undefined): void {
    this.current = taker;
  }
}
