// One pending wait with a deadline: long polls, replies and blocking stream
// reads all wait for "something happened, or time ran out, or the caller gave
// up, or the queues closed". Whichever comes first settles the wait once and
// runs its clean-ups, so no timer, abort listener or subscription outlives it.

/** Something `close()` can end early. */
export interface Cancellable {
  cancel(): void;
}

export interface WaitOptions<T> {
  timeoutMs: number;
  /** The value at the deadline (may look once more, e.g. read a key). */
  onTimeout: () => T | PromiseLike<T>;
  /** The value when aborted or cancelled by close(). */
  cancelled: T;
  signal?: AbortSignal;
  /** Pending waits of the owner, so its close() can settle them. */
  registry?: Set<Cancellable>;
}

export class Wait<T> implements Cancellable {
  readonly promise: Promise<T>;
  #resolve!: (value: T | PromiseLike<T>) => void;
  #settled = false;
  #cleanups: (() => void)[] = [];
  readonly #cancelled: T;

  constructor(options: WaitOptions<T>) {
    this.#cancelled = options.cancelled;
    this.promise = new Promise<T>((resolve) => {
      this.#resolve = resolve;
    });
    const { signal, registry } = options;
    if (signal?.aborted) {
      this.settle(options.cancelled);
      return;
    }
    const timer = setTimeout(
      () => {
        // The deadline may do one last asynchronous look; mark settled first so
        // nothing else races it.
        if (this.#settled) return;
        let value: T | PromiseLike<T>;
        try {
          value = options.onTimeout();
        } catch (error) {
          value = Promise.reject(error);
        }
        this.settle(value);
      },
      Math.max(0, options.timeoutMs),
    );
    this.onEnd(() => clearTimeout(timer));
    if (signal) {
      const onAbort = () => this.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      this.onEnd(() => signal.removeEventListener('abort', onAbort));
    }
    if (registry) {
      registry.add(this);
      this.onEnd(() => registry.delete(this));
    }
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Ends the wait with `value`; later calls are ignored. */
  settle(value: T | PromiseLike<T>): void {
    if (this.#settled) return;
    this.#settled = true;
    const cleanups = this.#cleanups;
    this.#cleanups = [];
    for (const cleanup of cleanups) cleanup();
    this.#resolve(value);
  }

  cancel(): void {
    this.settle(this.#cancelled);
  }

  /** Runs `cleanup` when the wait ends (at once if it has ended). */
  onEnd(cleanup: () => void): void {
    if (this.#settled) cleanup();
    else this.#cleanups.push(cleanup);
  }
}
