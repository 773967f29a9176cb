// A housekeeping pass run every so often beside the service (the prunes of
// expired sign-ins and of the webhook delivery log): one pass at a time —
// runOnce() while one runs joins it — on an unref'd interval, so
// housekeeping never keeps a process alive, and stop() waits for the pass
// in flight. A pass asks `stopped()` between its bounded steps.
export interface PeriodicPass<T> {
  /** One pass now (tests); joins the one running, if any. */
  runOnce(): Promise<T>;
  stop(): Promise<void>;
}

export function startPeriodicPass<T>(pass: (stopped: () => boolean) => Promise<T>, intervalMs: number, onError?: (error: unknown) => void): PeriodicPass<T> {
  let running: Promise<T> | undefined;
  let stopped = false;
  const isStopped = () => stopped;

  function runOnce(): Promise<T> {
    running ??= pass(isStopped).finally(() => (running = undefined));
    return running;
  }

  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => onError?.(error));
  }, intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
