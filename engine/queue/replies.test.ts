// Contract of Replies (types.ts): committed results back to the waiting pod.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { implementations, title, type Harness } from './testing/implementations.ts';
import type { Queues } from './types.ts';

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
}
