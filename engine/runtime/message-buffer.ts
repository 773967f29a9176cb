// Published messages held for their time to live, and the open message
// subscriptions by name and correlation key, and signal subscriptions by
// name (extension): the in-memory
// structures a driver of the core keeps to correlate messages — the
// in-memory engine, and each partition leader (rebuilt from Postgres at
// recovery). Pure data structures, no I/O, no clock of their own. Expiry
// pops from a min-heap on the deadline, so it never scans every message.
import type { Command, MessageSubscription, Variables } from './types.ts';

type CorrelateMessage = Extract<Command, { type: 'correlateMessage' }>;

export interface BufferedMessage {
  key: string;
  account: string;
  name: string;
  correlationKey: string;
  variables: Variables;
  /** Epoch ms after which it no longer correlates. */
  expiresAt: number;
  messageId?: string;
}

function slot(account: string, name: string, correlationKey: string): string {
  return `${account}\u0000${name}\u0000${correlationKey}`;
}

/** Whether decimal key `a` is greater than `b` (both without leading zeros). */
function keyAfter(a: string, b: string): boolean {
  return a.length !== b.length ? a.length > b.length : a > b;
}

export class MessageBuffer {
  /** By (account, name, correlation key), in publishing order. */
  private readonly bySlot = new Map<string, BufferedMessage[]>();
  private readonly byKey = new Map<string, BufferedMessage>();
  private readonly perAccount = new Map<string, number>();
  /** A binary min-heap on expiresAt. */
  private readonly heap: BufferedMessage[] = [];

  get size(): number {
    return this.byKey.size;
  }

  countOf(account: string): number {
    return this.perAccount.get(account) ?? 0;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  add(message: BufferedMessage): void {
    if (this.byKey.has(message.key)) return;
    this.byKey.set(message.key, message);
    const s = slot(message.account, message.name, message.correlationKey);
    const list = this.bySlot.get(s);
    if (list === undefined) this.bySlot.set(s, [message]);
    else list.push(message);
    this.perAccount.set(message.account, this.countOf(message.account) + 1);
    this.heap.push(message);
    this.up(this.heap.length - 1);
  }

  /** The live message with this messageId (Zeebe's uniqueness: name, correlation key and id). */
  withMessageId(account: string, name: string, correlationKey: string, messageId: string, now: number): BufferedMessage | undefined {
    return this.bySlot.get(slot(account, name, correlationKey))?.find((m) => m.messageId === messageId && m.expiresAt > now);
  }

  /** The first live message for a subscription of `account` that `skip` (already correlated to its instance) does not exclude. */
  firstFor(account: string, name: string, correlationKey: string, now: number, skip: readonly string[] | undefined): BufferedMessage | undefined {
    return this.bySlot.get(slot(account, name, correlationKey))?.find((m) => m.expiresAt > now && !(skip?.includes(m.key) ?? false));
  }

  /**
   * The command that correlates, to subscription `s` an instance of
   * `account` just opened, the first live message it has not had yet
   * (`correlated`); undefined when none is buffered.
   */
  correlationFor(account: string, s: MessageSubscription, now: number, correlated: readonly string[] | undefined): CorrelateMessage | undefined {
    const buffered = this.firstFor(account, s.name, s.correlationKey, now, correlated);
    if (buffered === undefined) return undefined;
    const { name, correlationKey, key: subscriptionKey } = s;
    return { type: 'correlateMessage', messageKey: buffered.key, name, correlationKey, variables: buffered.variables, subscriptionKey };
  }

  /**
   * The first live message of the slot published after the message `after`
   * (by key: a partition's keys, like the in-memory engine's, only grow), for
   * a message start event whose instance ended (message-start-gate.ts).
   */
  firstAfter(account: string, name: string, correlationKey: string, after: string, now: number): BufferedMessage | undefined {
    return this.bySlot.get(slot(account, name, correlationKey))?.find((m) => m.expiresAt > now && keyAfter(m.key, after));
  }

  /** Removes and returns every message whose time to live is over. */
  expire(now: number): BufferedMessage[] {
    const out: BufferedMessage[] = [];
    while (this.heap.length > 0 && this.heap[0].expiresAt <= now) {
      const message = this.pop();
      if (this.byKey.get(message.key) !== message) continue;
      this.byKey.delete(message.key);
      const s = slot(message.account, message.name, message.correlationKey);
      const list = this.bySlot.get(s)!;
      list.splice(list.indexOf(message), 1);
      if (list.length === 0) this.bySlot.delete(s);
      const left = this.countOf(message.account) - 1;
      if (left > 0) this.perAccount.set(message.account, left);
      else this.perAccount.delete(message.account);
      out.push(message);
    }
    return out;
  }

  clear(): void {
    this.bySlot.clear();
    this.byKey.clear();
    this.perAccount.clear();
    this.heap.length = 0;
  }

  private pop(): BufferedMessage {
    const top = this.heap[0];
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].expiresAt <= h[i].expiresAt) return;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l].expiresAt < h[m].expiresAt) m = l;
      if (r < h.length && h[r].expiresAt < h[m].expiresAt) m = r;
      if (m === i) return;
      [h[m], h[i]] = [h[i], h[m]];
      i = m;
    }
  }
}

/** Signal subscriptions have a slot of their own: a signal never reaches a message wait, nor a message a signal wait. */
function slotOf(account: string, s: MessageSubscription): string {
  return s.signal === true ? signalSlot(account, s.name) : slot(account, s.name, s.correlationKey);
}

function signalSlot(account: string, name: string): string {
  return `${account}\u0001${name}`;
}

/** Open subscriptions by (account, name, correlation key), signal ones by (account, name): subscription key → instance key. */
export class SubscriptionIndex {
  private readonly bySlot = new Map<string, Map<string, string>>();

  open(account: string, instanceKey: string, s: MessageSubscription): void {
    const k = slotOf(account, s);
    let map = this.bySlot.get(k);
    if (map === undefined) this.bySlot.set(k, (map = new Map()));
    map.set(s.key, instanceKey);
  }

  close(account: string, s: MessageSubscription): void {
    const k = slotOf(account, s);
    const map = this.bySlot.get(k);
    if (map === undefined) return;
    map.delete(s.key);
    if (map.size === 0) this.bySlot.delete(k);
  }

  /** Each instance waiting for the message once (its first matching subscription is the one correlated). */
  instancesFor(account: string, name: string, correlationKey: string): string[] {
    const map = this.bySlot.get(slot(account, name, correlationKey));
    return map === undefined ? [] : [...new Set(map.values())];
  }

  /** Each instance with an open signal subscription named `name`, once. */
  instancesForSignal(account: string, name: string): string[] {
    const map = this.bySlot.get(signalSlot(account, name));
    return map === undefined ? [] : [...new Set(map.values())];
  }

  /** Indexes every open subscription of an instance loaded from storage. */
  remember(account: string, instanceKey: string, subscriptions: Record<string, MessageSubscription> | undefined): void {
    if (subscriptions === undefined) return;
    for (const key in subscriptions) this.open(account, instanceKey, subscriptions[key]);
  }

  forget(account: string, subscriptions: Record<string, MessageSubscription> | undefined): void {
    if (subscriptions === undefined) return;
    for (const key in subscriptions) this.close(account, subscriptions[key]);
  }

  clear(): void {
    this.bySlot.clear();
  }
}
