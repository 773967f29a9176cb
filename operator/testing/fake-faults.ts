// Fault injection for the fake API server: what a real control plane does to
// a controller on a bad day. Failures and throttling are armed for the next n
// matching requests; dropping and stalling act on the watches open now (a
// stalled watch keeps its socket but never writes again, not even bookmarks,
// which is the dead connection a client only notices with its own watchdog).
import type { ServerResponse } from 'node:http';

/** Which requests a fault applies to, by URL path (and method). */
export type PathPredicate = (path: string, method: string) => boolean;

export interface OpenWatch {
  path: string;
  response: ServerResponse;
  stalled: boolean;
  close(): void;
}

interface Armed {
  remaining: number;
  predicate?: PathPredicate;
}

export interface InjectedFailure {
  status: number;
  retryAfterSeconds?: number;
}

export class FakeFaults {
  private readonly failures: (Armed & { status: number })[] = [];
  private readonly throttles: (Armed & { retryAfterSeconds: number })[] = [];

  constructor(private readonly watches: () => Iterable<OpenWatch>) {}

  /** Destroys the sockets of the open watches (all, or those whose path matches); returns how many. */
  dropWatches(predicate?: PathPredicate): number {
    let dropped = 0;
    for (const watch of [...this.watches()]) {
      if (predicate && !predicate(watch.path, 'GET')) continue;
      watch.response.socket?.destroy();
      watch.close();
      dropped++;
    }
    return dropped;
  }

  /** Keeps the open watches' connections but sends nothing on them again; returns how many. */
  stallWatches(predicate?: PathPredicate): number {
    let stalled = 0;
    for (const watch of this.watches()) {
      if (watch.stalled || (predicate && !predicate(watch.path, 'GET'))) continue;
      watch.stalled = true;
      stalled++;
    }
    return stalled;
  }

  /** The next n matching requests fail with this status and a Status body. */
  failNext(n: number, status = 500, predicate?: PathPredicate): void {
    this.failures.push({ remaining: n, status, predicate });
  }

  /** The next n matching requests get 429 Too Many Requests with Retry-After. */
  throttleNext(n: number, retryAfterSeconds = 1, predicate?: PathPredicate): void {
    this.throttles.push({ remaining: n, retryAfterSeconds, predicate });
  }

  /** Clears everything armed (open stalled watches stay stalled). */
  reset(): void {
    this.failures.length = 0;
    this.throttles.length = 0;
  }

  /** Consumes one armed fault matching the request, if any. */
  take(path: string, method: string): InjectedFailure | undefined {
    const throttle = this.consume(this.throttles, path, method);
    if (throttle) return { status: 429, retryAfterSeconds: throttle.retryAfterSeconds };
    const failure = this.consume(this.failures, path, method);
    if (failure) return { status: failure.status };
    return undefined;
  }

  private consume<T extends Armed>(list: T[], path: string, method: string): T | undefined {
    const index = list.findIndex((armed) => !armed.predicate || armed.predicate(path, method));
    if (index < 0) return undefined;
    const armed = list[index];
    if (--armed.remaining <= 0) list.splice(index, 1);
    return armed;
  }
}
