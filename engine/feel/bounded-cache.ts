// A size-bounded memo for compiled expressions. Models can carry any number
// of distinct expressions (and DMN tables generated at runtime even more), so
// the cache must not grow forever. Eviction is first-in-first-out: a hit costs
// one Map lookup and no reordering, which matters more on the evaluation hot
// path than keeping the exact least-recently-used entry.

export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`cache capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Returns the cached value for `key`, computing and storing it on a miss. */
  getOrCreate(key: string, create: (key: string) => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = create(key);
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
