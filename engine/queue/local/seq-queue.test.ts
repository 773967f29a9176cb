import { describe, expect, it } from 'vitest';
import { SeqQueue } from './seq-queue.ts';

const drain = (queue: SeqQueue) => {
  const keys: string[] = [];
  for (let key = queue.pop(); key !== undefined; key = queue.pop()) keys.push(key);
  return keys;
};

describe('SeqQueue', () => {
  it('pops by sequence number, inserting returning members at their place', () => {
    const queue = new SeqQueue();
    queue.add('a', 1);
    queue.add('b', 2);
    queue.add('d', 4);
    expect(queue.pop()).toBe('a');
    queue.add('c', 3);
    queue.add('a', 1);
    expect(queue.size).toBe(4);
    expect(drain(queue)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('skips removed members and never yields a member twice', () => {
    const queue = new SeqQueue();
    for (let i = 1; i <= 5; i++) queue.add(String(i), i);
    queue.remove('2');
    queue.remove('4');
    queue.add('4', 4);
    queue.add('5', 9);
    expect(queue.has('2')).toBe(false);
    expect(drain(queue)).toEqual(['1', '3', '4', '5']);
    expect(queue.size).toBe(0);
  });

  it('stays small under many removals without pops', () => {
    const queue = new SeqQueue();
    for (let i = 0; i < 10_000; i++) queue.add(String(i), i);
    for (let i = 0; i < 9_990; i++) queue.remove(String(i));
    expect(queue.size).toBe(10);
    expect(drain(queue)).toEqual(Array.from({ length: 10 }, (_, i) => String(9_990 + i)));
  });
});
