// The in-process counterpart of a Redis sorted set used as a queue: members
// ordered by their sequence number (place in line), popped lowest first.
// Pushes carry ever-growing sequence numbers, so they append; the rare
// insert in the middle (a requeued job returning to its old place) splices.
// Removal is lazy: the member map is the truth, array slots whose member was
// removed or moved are skipped when reached.

interface Slot {
  key: string;
  seq: number;
}

export class SeqQueue {
  #slots: Slot[] = [];
  #head = 0;
  readonly #live = new Map<string, number>();

  get size(): number {
    return this.#live.size;
  }

  has(key: string): boolean {
    return this.#live.has(key);
  }

  add(key: string, seq: number): void {
    const current = this.#live.get(key);
    if (current === seq) return;
    this.#live.set(key, seq);
    const slots = this.#slots;
    if (slots.length === this.#head || slots[slots.length - 1].seq <= seq) {
      slots.push({ key, seq });
      return;
    }
    // Binary search for the first live-region slot with a larger seq.
    let lo = this.#head;
    let hi = slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (slots[mid].seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    slots.splice(lo, 0, { key, seq });
  }

  remove(key: string): boolean {
    if (!this.#live.delete(key)) return false;
    // Many removals and no pops (cancellations on a type nobody works on)
    // would otherwise keep dead slots forever.
    const stale = this.#slots.length - this.#head - this.#live.size;
    if (stale > 1024 && stale > this.#live.size) {
      this.#slots = this.#slots.slice(this.#head).filter((slot) => this.#live.get(slot.key) === slot.seq);
      this.#head = 0;
    }
    return true;
  }

  /** The member with the lowest sequence number, removed; undefined when empty. */
  pop(): string | undefined {
    const slots = this.#slots;
    while (this.#head < slots.length) {
      const slot = slots[this.#head++];
      if (this.#live.get(slot.key) === slot.seq) {
        this.#live.delete(slot.key);
        this.#compact();
        return slot.key;
      }
    }
    this.#compact();
    return undefined;
  }

  #compact(): void {
    if (this.#head === this.#slots.length) {
      this.#slots = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#slots.length) {
      this.#slots = this.#slots.slice(this.#head);
      this.#head = 0;
    }
  }
}
