// Forgets expired sign-in codes and sessions, which nothing reads once they
// have expired (a session's expiry is checked on every request, a code's
// on every use) but which would otherwise pile up for good. Runs beside the
// webhook dispatcher (api/webhooks/service.ts: processes leading
// partitions), every `intervalMs`; each pass deletes at most `batch` rows of
// each kind per statement, oldest expiry first through the expiry indexes,
// and goes on at once while a statement came back full, so a backlog
// drains in bounded steps without a full scan. Several processes may run it:
// their deletes skip each other's rows.
import type { loginRepository } from '../../engine/index.ts';
import { startPeriodicPass } from '../services/periodic-pass.ts';

export interface LoginPruneOptions {
  repo: Pick<ReturnType<typeof loginRepository>, 'pruneExpired'>;
  /** Between passes (default 10 minutes). */
  intervalMs?: number;
  /** Rows of each kind per statement (default 1000). */
  batch?: number;
  now?: () => Date;
  onError?: (error: unknown) => void;
}

export interface LoginPrune {
  /** One pass now (tests); resolves when it is done. */
  runOnce(): Promise<{ codes: number; sessions: number }>;
  stop(): Promise<void>;
}

export function startLoginPrune(options: LoginPruneOptions): LoginPrune {
  const batch = options.batch ?? 1_000;
  const now = options.now ?? (() => new Date());
  return startPeriodicPass(
    async (stopped) => {
      const total = { codes: 0, sessions: 0 };
      for (;;) {
        const { codes, sessions } = await options.repo.pruneExpired(now(), batch);
        total.codes += codes;
        total.sessions += sessions;
        if (stopped() || (codes < batch && sessions < batch)) return total;
      }
    },
    options.intervalMs ?? 600_000,
    options.onError,
  );
}
