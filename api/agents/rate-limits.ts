// The flood guard of orca.register and orca.connect: token buckets per
// account and per caller address, apart from the per-account request limit
// of the REST routes (a registration costs a row and a secret, so it gets a
// budget of its own). Buckets are the REST limit's (plugins/
// rate-limit-buckets.ts): in Redis when the server has one, shared by every
// pod, else in this process. Like that limit, it protects the service and
// is not a dependency of it: when Redis does not answer, calls pass.
import { ApiError } from '../problem.ts';
import { LocalTokenBuckets, type BucketLimits, type TokenBuckets } from '../plugins/rate-limit-buckets.ts';

export interface AgentRateLimits {
  /** Registrations per account and per address (default: bursts of 10, then one every 6 s). */
  register?: BucketLimits;
  /** Session openings per account and per address (default: bursts of 30, then one a second). */
  connect?: BucketLimits;
}

export const DEFAULT_AGENT_RATE_LIMITS: Required<AgentRateLimits> = {
  register: { perSecond: 1 / 6, burst: 10 },
  connect: { perSecond: 1, burst: 30 },
};

/** Opens the buckets for one kind of call; the REST limit's Redis buckets when given a factory. */
export type BucketsFactory = (name: 'register' | 'connect' | 'login', limits: BucketLimits) => TokenBuckets;

export const localBuckets: BucketsFactory = (_name, limits) => new LocalTokenBuckets(limits);

export class CallLimit {
  readonly #buckets: TokenBuckets;

  constructor(
    private readonly what: 'register' | 'connect',
    private readonly limits: BucketLimits,
    factory: BucketsFactory,
  ) {
    this.#buckets = factory(what, limits);
  }

  /** Takes one call from each named bucket in turn (`account:…`, `address:…`); RATE_LIMITED at the first that is empty (the ones before it keep their take). */
  async take(...subjects: (string | undefined)[]): Promise<void> {
    for (const subject of subjects) {
      if (subject === undefined) continue;
      let take;
      try {
        take = await this.#buckets.take(`agents-${this.what}:${subject}`);
      } catch {
        continue;
      }
      if (take.allowed) continue;
      const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000));
      const kind = subject.startsWith('address:') ? 'address' : 'account';
      throw new ApiError(
        'RATE_LIMITED',
        `Too many ${this.what === 'register' ? 'agent registrations' : 'session openings'} from this ${kind} (bursts of ${this.limits.burst}); retry in ${seconds} s.`,
        { retryAfterSeconds: seconds },
      );
    }
  }

  close(): Promise<void> {
    return this.#buckets.close();
  }
}
