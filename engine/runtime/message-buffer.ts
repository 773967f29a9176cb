// Published messages held for their time to live, and the open message
// subscriptions by name and correlation key, and signal subscriptions by
// name (extension): the in-memory
// structures a driver of the core keeps to correlate messages — the
// in-memory engine, and each partition leader (rebuilt from Postgres at
// recovery). Pure data structures, no I/O, no clock of their own. Expiry
// pops from a min-heap on the deadline, so it never scans every message.
// A buffered message remembers the processes it went to (Zeebe's
// cardinality: one instance of each process, by BPMN process id), so it is
// not offered again to another instance of one of them.
import type { Command, MessageSubscription, Variables } from './types.ts';

type CorrelateMessage = Extract<Command, { type: 'correlateMessage' }>;

/** A message to publish (extension): Zeebe's PublishMessage. */
export interface PublishedMessage {
  name: string;
  correlationKey?: string;
  variables?: Variables;
  /** How long it stays buffered for subscriptions opened later, ms; 0 (the default) = not buffered. */
  timeToLive?: number;
  messageId?: string;
}

export interface BufferedMessage {
  key: string;
  account: string;
  name: string;
  correlationKey: string;
  variables: Variables;
  /** Epoch ms after which it no longer correlates. */
  expiresAt: number;
  messageId?: string;
  /** The processes (BPMN process ids) an instance of which the message went to, as far as its holder knows. */
  processes?: Set<string>;
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

  get(key: string): BufferedMessage | undefined {
    return this.byKey.get(key);
  }

  /** Notes that the message went to an instance of `bpmnProcessId`: no other instance of that process gets it from here. */
  wentTo(key: string, bpmnProcessId: string): void {
    const message = this.byKey.get(key);
    if (message !== undefined) (message.processes ??= new Set()).add(bpmnProcessId);
  }

  /** The live message with this messageId (Zeebe's uniqueness: name, correlation key and id). */
  withMessageId(account: string, name: string, correlationKey: string, messageId: string, now: number): BufferedMessage | undefined {
    return this.bySlot.get(slot(account, name, correlationKey))?.find((m) => m.messageId === messageId && m.expiresAt > now);
  }

  /**
   * The command that correlates, to subscription `s` an instance of
   * `bpmnProcessId` of `account` just opened, the first live message that
   * neither it (`correlated`) nor another instance of its process had yet;
   * undefined when none is buffered.
   */
  correlationFor(
    account: string,
    bpmnProcessId: string,
    s: Pick<MessageSubscription, 'key' | 'name' | 'correlationKey'>,
    now: number,
    correlated: readonly string[] | undefined,
  ): CorrelateMessage | undefined {
    const buffered = this.bySlot
      .get(slot(account, s.name, s.correlationKey))
      ?.find((m) => m.expiresAt > now && !(correlated?.includes(m.key) ?? false) && !(m.processes?.has(bpmnProcessId) ?? false));
    if (buffered === undefined) return undefined;
    const { name, correlationKey, key: subscriptionKey } = s;
    return { type: 'correlateMessage', messageKey: buffered.key, name, correlationKey, variables: buffered.variables, subscriptionKey };
  }

  /**
   * The first live message of the slot published after the message `after`
   * (by key: a partition's keys, like the in-memory engine's, only grow), for
   * a message start event whose instance ended (message-start-gate.ts).
   */
  firstAfter(account: string, bpmnProcessId: string, name: string, correlationKey: string, after: string, now: number): BufferedMessage | undefined {
    return this.bySlot
      .get(slot(account, name, correlationKey))
      ?.find((m) => m.expiresAt > now && keyAfter(m.key, after) && !(m.processes?.has(bpmnProcessId) ?? false));
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
