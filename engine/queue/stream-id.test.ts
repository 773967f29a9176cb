import { describe, expect, it } from 'vitest';
import { compareStreamIds, formatStreamId, nextStreamId, parseStreamId, streamIdIsAfter } from './stream-id.ts';

describe('stream ids', () => {
  it('parses, orders and steps Redis-shaped ids', () => {
    expect(parseStreamId('0')).toEqual({ ms: 0, seq: 0 });
    expect(parseStreamId('1700000000000-12')).toEqual({ ms: 1700000000000, seq: 12 });
    expect(compareStreamIds(parseStreamId('5-1'), parseStreamId('5-2'))).toBeLessThan(0);
    expect(compareStreamIds(parseStreamId('6-0'), parseStreamId('5-9'))).toBeGreaterThan(0);
    expect(formatStreamId(nextStreamId(parseStreamId('5-9')))).toBe('5-10');
    expect(streamIdIsAfter('5-10', '5-9')).toBe(true);
    expect(streamIdIsAfter('5-9', '5-9')).toBe(false);
    expect(streamIdIsAfter('1-0', '0')).toBe(true);
    expect(streamIdIsAfter('0', '0-0')).toBe(false);
  });

  it('rejects what is not an id', () => {
    for (const bad of ['', '$', '-1', 'a-b', '1-2-3', '1.5-0']) expect(() => parseStreamId(bad), bad).toThrow(RangeError);
  });
});
