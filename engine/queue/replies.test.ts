// Contract of Replies (types.ts): committed results back to the waiting pod,
// by command key (waitReply) and through the pod's reply channel
// (expectReply + replyTo, the hot path).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { implementations, title, type Harness } from './testing/implementations.ts';
import type { Queues, Reply, StreamEntry } from './types.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`Replies: ${title(implementation)}`, () => {
    let harness: Harness;
    let api: Queues;
    let leader: Queues;

    beforeEach(async () => {
      harness = implementation.harness({ replyTtlMs: 1000 });
      api = await harness.open();
      leader = await harness.open();
    });
    afterEach(() => harness.cleanup());

    it('delivers a reply sent while the pod waits', async () => {
      const waiting = api.replies.waitReply('cmd-1', 5000);
      await settle();
      await leader.replies.sendReplies([
        { commandKey: 'cmd-1', result: { processInstanceKey: '42' } },
        { commandKey: 'cmd-other', result: 1 },
      ]);
      expect(await waiting).toEqual({ processInstanceKey: '42' });
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('delivers a reply sent before the pod started waiting', async () => {
      await leader.replies.sendReplies([{ commandKey: 'cmd-2', result: { ok: true } }]);
      expect(await api.replies.waitReply('cmd-2', 5000)).toEqual({ ok: true });
      // Any number of waiters get the same reply while it is kept.
      expect(await api.replies.waitReply('cmd-2', 5000)).toEqual({ ok: true });
      expect(harness.listeners()).toBe(0);
    });

    it('gives every waiter of the same command the reply', async () => {
      const waiting = [api.replies.waitReply('cmd-3', 5000), leader.replies.waitReply('cmd-3', 5000)];
      await settle();
      await leader.replies.sendReplies([{ commandKey: 'cmd-3', result: 'done' }]);
      expect(await Promise.all(waiting)).toEqual(['done', 'done']);
    });

    it('delivers undefined as null, so it is not mistaken for a timeout', async () => {
      await leader.replies.sendReplies([{ commandKey: 'cmd-4', result: undefined }]);
      expect(await api.replies.waitReply('cmd-4', 1000)).toBeNull();
    });

    it('times out with undefined, without leaking', async () => {
      const started = Date.now();
      await leader.replies.sendReplies([{ commandKey: 'someone-else', result: 1 }]);
      expect(await api.replies.waitReply('cmd-5', 200)).toBeUndefined();
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('forgets a reply after the reply TTL', async () => {
      await leader.replies.sendReplies([{ commandKey: 'cmd-6', result: 1 }]);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      // A later send sweeps expired replies in the in-process implementation.
      await leader.replies.sendReplies([{ commandKey: 'cmd-7', result: 2 }]);
      expect(await api.replies.waitReply('cmd-6', 100)).toBeUndefined();
    });

    it('close() ends pending waits with undefined', async () => {
      const waiting = api.replies.waitReply('cmd-8', 10_000);
      await settle();
      await api.close();
      expect(await waiting).toBeUndefined();
    });
  });

  describe.skipIf(implementation.skip)(`Replies through the reply channel: ${title(implementation)}`, () => {
    let harness: Harness;
    let api: Queues;
    let leader: Queues;

    beforeEach(async () => {
      harness = implementation.harness({ replyTtlMs: 1000 });
      api = await harness.open();
      leader = await harness.open();
    });
    afterEach(() => harness.cleanup());

    /** What the partition leader does: read the partition's commands, reply to each where it asked. */
    async function answer(partition: number, result: (entry: StreamEntry) => unknown = (entry) => ({ for: entry.key })): Promise<StreamEntry[]> {
      const entries = await leader.commands.read(partition, '0', 100_000, 0);
      await leader.replies.sendReplies(entries.map((entry) => ({ commandKey: entry.key, result: result(entry), replyTo: entry.replyTo })));
      if (entries.length > 0) await leader.commands.ack(partition, entries[entries.length - 1].id);
      return entries;
    }

    it('delivers the reply to the waiter registered before the command was appended', async () => {
      const expected = await api.replies.expectReply('cmd-1', 5000);
      await api.commands.append(0, { key: 'cmd-1', payload: { kind: 'start' }, replyTo: expected.channel });
      const [entry] = await answer(0);
      expect(entry).toMatchObject({ key: 'cmd-1', replyTo: expected.channel });
      expect(await expected.promise).toEqual({ for: 'cmd-1' });
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('loses none of 1,000 concurrent waiters, each getting its own reply, over several batches', async () => {
      const n = 1000;
      const keys = Array.from({ length: n }, (_, i) => `many-${i}`);
      const waiting = await Promise.all(
        keys.map(async (key, i) => {
          const expected = await api.replies.expectReply(key, 20_000);
          await api.commands.append(i % 4, { key, payload: i, replyTo: expected.channel });
          // Wrapped: an async function returning the promise itself would wait for the reply.
          return { reply: expected.promise };
        }),
      );
      // The leaders answer in batches, out of order across partitions, some results undefined.
      const replies: Reply[] = [];
      for (const partition of [3, 1, 0, 2]) {
        for (const entry of await leader.commands.read(partition, '0', n, 0)) {
          replies.push({ commandKey: entry.key, result: entry.payload === 7 ? undefined : { key: entry.key, n: entry.payload }, replyTo: entry.replyTo });
        }
      }
      expect(replies).toHaveLength(n);
      for (let i = 0; i < n; i += 137) await leader.replies.sendReplies(replies.slice(i, i + 137));
      const results = await Promise.all(waiting.map((w) => w.reply));
      results.forEach((result, i) => expect(result).toEqual(i === 7 ? null : { key: keys[i], n: i }));
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('replies only to the channel the command named', async () => {
      const mine = await api.replies.expectReply('shared-key', 5000);
      const other = await leader.replies.expectReply('shared-key', 300);
      await leader.replies.sendReplies([{ commandKey: 'shared-key', result: 'for api', replyTo: mine.channel }]);
      expect(await mine.promise).toBe('for api');
      if (other.channel !== mine.channel) expect(await other.promise).toBeUndefined();
      // A channel nobody here listens on reaches nobody here.
      const lonely = await api.replies.expectReply('lonely', 300);
      await leader.replies.sendReplies([{ commandKey: 'lonely', result: 1, replyTo: `${lonely.channel}-elsewhere` }]);
      expect(await lonely.promise).toBeUndefined();
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('gives every waiter of the same command in the process its own copy', async () => {
      const first = await api.replies.expectReply('twice', 5000);
      const second = await api.replies.expectReply('twice', 5000);
      await leader.replies.sendReplies([{ commandKey: 'twice', result: { n: 1 }, replyTo: first.channel }]);
      const [a, b] = await Promise.all([first.promise, second.promise]);
      expect(a).toEqual({ n: 1 });
      expect(b).toEqual({ n: 1 });
      expect(a).not.toBe(b);
    });

    it('times out with undefined, and cancel() ends the wait at once, without leaking', async () => {
      const started = Date.now();
      const late = await api.replies.expectReply('never', 200);
      expect(await late.promise).toBeUndefined();
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      const cancelled = await api.replies.expectReply('not-appended', 10_000);
      cancelled.cancel();
      expect(await cancelled.promise).toBeUndefined();
      // A reply arriving after the wait ended goes nowhere.
      await leader.replies.sendReplies([{ commandKey: 'not-appended', result: 1, replyTo: cancelled.channel }]);
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('keeps a channel reply for nobody, and still keeps a keyed reply in the same batch', async () => {
      const expected = await api.replies.expectReply('routed', 5000);
      await leader.replies.sendReplies([
        { commandKey: 'routed', result: 'direct', replyTo: expected.channel },
        { commandKey: 'keyed', result: 'kept' },
      ]);
      expect(await expected.promise).toBe('direct');
      expect(await api.replies.waitReply('keyed', 1000)).toBe('kept');
      // Not kept: a late waiter by key does not get a reply that went to a channel.
      expect(await api.replies.waitReply('routed', 100)).toBeUndefined();
    });

    it('close() ends pending waits with undefined', async () => {
      const expected = await api.replies.expectReply('open', 10_000);
      await api.close();
      expect(await expected.promise).toBeUndefined();
    });
  });
}
