// Authentication results kept for a moment, so a busy worker's every
// request does not cost a Postgres round trip (the benchmark's profile: the
// key lookup was a third of the API's database work). Only successes are
// kept, each for `ttlMs` at most and never past its token's expiry.
//
// Retiring a key must take effect at once (SPEC.md: "The old key stops
// working at once"): the pod that retires it evicts the key here and
// announces it to every other pod (Queues.notices), which evict it too. The
// short life bounds the damage of a lost notice. A lookup that was already
// under way when a retirement arrived is not kept, since it may have read
// the key before the retirement committed.
export interface Credential {
  account: string;
  keyId: string;
}

interface Entry extends Credential {
  until: number;
}

export class AuthCache {
  readonly #entries = new Map<string, Entry>();
  #generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The credential with this hash, if one was kept and is still fresh at `now`. */
  get(hash: string, now: number): Credential | undefined {
    const entry = this.#entries.get(hash);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry;
    this.#entries.delete(hash);
    return undefined;
  }

  /** Marks the start of a lookup; pass it to `set`. */
  generation(): number {
    return this.#generation;
  }

  /** Keeps a lookup's success, unless a retirement arrived since it started (`generation`). */
  set(hash: string, credential: Credential, now: number, generation: number, expiresAt = Infinity): void {
    if (this.ttlMs <= 0 || generation !== this.#generation) return;
    // Oldest first out: a Map iterates in insertion order.
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(hash, { ...credential, until: Math.min(now + this.ttlMs, expiresAt) });
  }

  /** Forgets the key and every token minted from it. */
  revokeKey(keyId: string): void {
    this.#generation++;
    for (const [hash, entry] of this.#entries) if (entry.keyId === keyId) this.#entries.delete(hash);
  }
}
