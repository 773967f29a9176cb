// Contract of CommandStream (types.ts): the per-partition command log.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { implementations, title, type Harness } from './testing/implementations.ts';
import { compareStreamIds, parseStreamId } from './stream-id.ts';
import type { Queues } from './types.ts';

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`CommandStream: ${title(implementation)}`, () => {
    let harness: Harness;
    let api: Queues;
    let leader: Queues;

    beforeEach(async () => {
      harness = implementation.harness();
      api = await harness.open();
      leader = await harness.open();
    });
    afterEach(() => harness.cleanup());

    it('appends in order and reads after an id, up to max', async () => {
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) ids.push(await api.commands.append(3, { key: `c${i}`, payload: { type: 'start', n: i } }));
      for (let i = 1; i < ids.length; i++) expect(compareStreamIds(parseStreamId(ids[i - 1]), parseStreamId(ids[i]))).toBeLessThan(0);

      const first = await leader.commands.read(3, '0', 2, 0);
      expect(first).toEqual([
        { id: ids[0], key: 'c1', payload: { type: 'start', n: 1 } },
        { id: ids[1], key: 'c2', payload: { type: 'start', n: 2 } },
      ]);
      const rest = await leader.commands.read(3, first[1].id, 10, 0);
      expect(rest.map((entry) => entry.key)).toEqual(['c3', 'c4', 'c5']);
      expect(await leader.commands.read(3, rest[2].id, 10, 0)).toEqual([]);
    });

    it('keeps partitions apart', async () => {
      await api.commands.append(1, { key: 'a', payload: null });
      await api.commands.append(2, { key: 'b', payload: 'x' });
      expect((await leader.commands.read(1, '0', 10, 0)).map((entry) => [entry.key, entry.payload])).toEqual([['a', null]]);
      expect((await leader.commands.read(2, '0', 10, 0)).map((entry) => [entry.key, entry.payload])).toEqual([['b', 'x']]);
      expect(await leader.commands.read(5, '0', 10, 0)).toEqual([]);
    });

    it('ack drops committed entries: pending is the backlog, a new leader replays only the rest', async () => {
      const ids: string[] = [];
      for (let i = 1; i <= 4; i++) ids.push(await api.commands.append(0, { key: `c${i}`, payload: i }));
      expect(await api.commands.pending(0)).toBe(4);
      await leader.commands.ack(0, ids[1]);
      expect(await api.commands.pending(0)).toBe(2);
      expect((await leader.commands.read(0, '0', 10, 0)).map((entry) => entry.key)).toEqual(['c3', 'c4']);
      await leader.commands.ack(0, ids[1]);
      expect(await api.commands.pending(0)).toBe(2);
      await leader.commands.ack(0, ids[3]);
      expect(await api.commands.pending(0)).toBe(0);
      expect(await leader.commands.read(0, '0', 10, 0)).toEqual([]);
      expect(await api.commands.pending(7)).toBe(0);
    });

    it('a blocking read wakes on append', async () => {
      const started = Date.now();
      const reading = leader.commands.read(4, '0', 10, 5000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await api.commands.append(4, { key: 'late', payload: { ok: true } });
      const entries = await reading;
      expect(entries.map((entry) => [entry.key, entry.payload])).toEqual([['late', { ok: true }]]);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('a blocking read with nothing new answers [] after blockMs', async () => {
      const id = await api.commands.append(4, { key: 'old', payload: 1 });
      const started = Date.now();
      expect(await leader.commands.read(4, id, 10, 200)).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    });

    it('carries the reply channel of a command that has one, and nothing for one that has not', async () => {
      await api.commands.append(2, { key: 'routed', payload: 1, replyTo: 'orca:{i:abc}:replies' });
      await api.commands.append(2, { key: 'plain', payload: 2 });
      const entries = await leader.commands.read(2, '0', 10, 0);
      expect(entries[0]).toMatchObject({ key: 'routed', payload: 1, replyTo: 'orca:{i:abc}:replies' });
      expect(entries[1]).not.toHaveProperty('replyTo');
    });

    it('appendIfBelow appends only while fewer than `limit` entries are pending', async () => {
      for (let i = 1; i <= 3; i++) expect(await api.commands.appendIfBelow(5, { key: `s${i}`, payload: i, replyTo: 'chan' }, 3)).toBe('appended');
      expect(await api.commands.appendIfBelow(5, { key: 's4', payload: 4 }, 3)).toBe('full');
      expect(await api.commands.pending(5)).toBe(3);
      // A plain append (a completion) is not limited.
      await api.commands.append(5, { key: 'done', payload: 0 });
      expect(await api.commands.appendIfBelow(5, { key: 's4', payload: 4 }, 4)).toBe('full');
      const entries = await leader.commands.read(5, '0', 10, 0);
      expect(entries.map((entry) => [entry.key, entry.payload, entry.replyTo])).toEqual([
        ['s1', 1, 'chan'],
        ['s2', 2, 'chan'],
        ['s3', 3, 'chan'],
        ['done', 0, undefined],
      ]);
      // Draining makes room again.
      await leader.commands.ack(5, entries[1].id);
      expect(await api.commands.appendIfBelow(5, { key: 's4', payload: 4 }, 3)).toBe('appended');
      expect(await api.commands.appendIfBelow(5, { key: 's5', payload: 5 }, 3)).toBe('full');
      expect(await api.commands.appendIfBelow(7, { key: 'x', payload: null }, 0)).toBe('full');
      expect(await api.commands.pending(7)).toBe(0);
    });

    it('appendIfBelow never overshoots the limit under concurrent appends from several pods', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? api : leader).commands.appendIfBelow(1, { key: `c${i}`, payload: i }, 25)),
      );
      expect(outcomes.filter((o) => o === 'appended')).toHaveLength(25);
      expect(await api.commands.pending(1)).toBe(25);
    });

    it('lastEntryId and firstEntryId are the newest and oldest entries still in the stream, "0" when none', async () => {
      expect(await leader.commands.lastEntryId(3)).toBe('0');
      expect(await leader.commands.firstEntryId(3)).toBe('0');
      const first = await api.commands.append(3, { key: 'a', payload: 1 });
      const second = await api.commands.append(3, { key: 'b', payload: 2 });
      expect(await leader.commands.lastEntryId(3)).toBe(second);
      expect(await leader.commands.firstEntryId(3)).toBe(first);
      await leader.commands.ack(3, first);
      expect(await leader.commands.lastEntryId(3)).toBe(second);
      expect(await leader.commands.firstEntryId(3)).toBe(second);
      await leader.commands.ack(3, second);
      expect(await leader.commands.lastEntryId(3)).toBe('0');
      expect(await leader.commands.firstEntryId(3)).toBe('0');
    });

    it('a blocking read wakes on appendIfBelow', async () => {
      const reading = leader.commands.read(6, '0', 10, 5000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await api.commands.appendIfBelow(6, { key: 'late', payload: 1 }, 10);
      expect((await reading).map((entry) => entry.key)).toEqual(['late']);
    });

    it('close() ends a blocked read with []', async () => {
      const reading = leader.commands.read(6, '0', 10, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await leader.close();
      expect(await reading).toEqual([]);
    });
  });
}
