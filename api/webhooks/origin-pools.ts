// Where the dispatcher's requests go out: one keep-alive undici Pool per
// receiver origin (connections are reused from one delivery to the next,
// through the SSRF guard's connector), and each endpoint URL parsed once
// into its pool and request path rather than per attempt.
import { Pool } from 'undici';

export interface Target {
  pool: Pool;
  /** Path and query of the endpoint URL. */
  path: string;
}

/** Endpoint URLs remembered at most; past it they are parsed again (the pools stay). */
const MAX_TARGETS = 4096;

export class OriginPools {
  private readonly pools = new Map<string, Pool>();
  private readonly targets = new Map<string, Target>();

  constructor(private readonly options: Pool.Options) {}

  /** The pool and path for `url`; throws for a URL that does not parse. */
  target(url: string): Target {
    let found = this.targets.get(url);
    if (found === undefined) {
      const parsed = new URL(url);
      let pool = this.pools.get(parsed.origin);
      if (pool === undefined) this.pools.set(parsed.origin, (pool = new Pool(parsed.origin, this.options)));
      if (this.targets.size >= MAX_TARGETS) this.targets.clear();
      this.targets.set(url, (found = { pool, path: `${parsed.pathname}${parsed.search}` }));
    }
    return found;
  }

  /** Closes every connection at once (requests in flight fail). */
  async destroy(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    this.targets.clear();
    await Promise.allSettled(pools.map((pool) => pool.destroy()));
  }
}
