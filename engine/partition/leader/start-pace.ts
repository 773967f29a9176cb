// The pace of the starts a leader makes for thrown signals (extension,
// docs/signals.md; THROWN_SIGNAL_STARTS in limits.ts): a token bucket per
// account that may go into debt, so each start is told how long to wait for
// its turn rather than refused — a thrown signal is never dropped, only
// slowed. Buckets full again are forgotten, so idle accounts cost nothing.
export interface PaceLimits {
  perSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class StartPace {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: PaceLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes `count` starts for `account`; how many ms they must wait for their turn (0: now). */
  reserve(account: string, count: number): number {
    const { perSecond, burst } = this.limits;
    const now = this.now();
    if (this.buckets.size > 10_000) this.forgetFull(now);
    const bucket = this.buckets.get(account) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) * perSecond) / 1000) - count;
    bucket.at = now;
    this.buckets.set(account, bucket);
    return bucket.tokens >= 0 ? 0 : Math.ceil((-bucket.tokens * 1000) / perSecond);
  }

  private forgetFull(now: number): void {
    const { perSecond, burst } = this.limits;
    for (const [account, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) * perSecond) / 1000 >= burst) this.buckets.delete(account);
    }
  }
}
