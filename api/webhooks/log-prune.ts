// Forgets the delivery log past its retention (ORCA_WEBHOOK_LOG_RETENTION_MS):
// delivered batch rows and finished delivery rows written before then, on
// one retention so the log an endpoint lists ends at the same age for both
// kinds. Runs beside the dispatcher (service.ts) every `intervalMs`; each
// pass goes on while a statement came back full, in bounded steps, and
// several processes may run it (their deletes skip each other's rows).
// A retention of 0 keeps the log for good.
import type { Store } from '../../engine/index.ts';
import { startPeriodicPass } from '../services/periodic-pass.ts';

export interface LogPruneOptions {
  repo: Pick<Store['webhooks'], 'pruneLog'>;
  retentionMs: number;
  /** Between passes (default 10 minutes). */
  intervalMs?: number;
  /** Rows of each kind per statement (default 1000). */
  batch?: number;
  now?: () => Date;
  onError?: (error: unknown) => void;
}

export interface LogPrune {
  /** One pass now (tests); how many of each kind it deleted. */
  runOnce(): Promise<{ batches: number; deliveries: number }>;
  stop(): Promise<void>;
}

export function startLogPrune(options: LogPruneOptions): LogPrune {
  const batch = options.batch ?? 1_000;
  const now = options.now ?? (() => new Date());
  return startPeriodicPass(
    async (stopped) => {
      const total = { batches: 0, deliveries: 0 };
      if (options.retentionMs <= 0) return total;
      for (;;) {
        const step = await options.repo.pruneLog(new Date(now().getTime() - options.retentionMs), batch);
        total.batches += step.batches;
        total.deliveries += step.deliveries;
        if (stopped() || !step.more) return total;
      }
    },
    options.intervalMs ?? 600_000,
    options.onError,
  );
}
