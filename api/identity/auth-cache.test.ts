import { describe, expect, it } from 'vitest';
import { AuthCache } from './auth-cache.ts';

const key = { account: 'acc_1', keyId: 'key_1' };

describe('AuthCache', () => {
  it('keeps a success for its life, and never past the token it came from', () => {
    const cache = new AuthCache(1_000);
    cache.set('h1', key, 10_000, cache.generation());
    cache.set('h2', key, 10_000, cache.generation(), 10_400);
    expect(cache.get('h1', 10_999)).toMatchObject(key);
    expect(cache.get('h1', 11_000)).toBeUndefined();
    expect(cache.get('h2', 10_399)).toMatchObject(key);
    expect(cache.get('h2', 10_400)).toBeUndefined();
  });

  it('forgets a retired key and its tokens at once, and nothing else', () => {
    const cache = new AuthCache(60_000);
    cache.set('key', key, 0, cache.generation());
    cache.set('token', key, 0, cache.generation());
    cache.set('other', { account: 'acc_2', keyId: 'key_2' }, 0, cache.generation());
    cache.revokeKey('key_1');
    expect(cache.get('key', 1)).toBeUndefined();
    expect(cache.get('token', 1)).toBeUndefined();
    expect(cache.get('other', 1)).toMatchObject({ keyId: 'key_2' });
  });

  it('does not keep a lookup that was under way when a retirement arrived', () => {
    const cache = new AuthCache(60_000);
    const started = cache.generation();
    cache.revokeKey('key_1');
    cache.set('key', key, 0, started);
    expect(cache.get('key', 1)).toBeUndefined();
  });

  it('keeps nothing with a life of 0, and at most maxEntries', () => {
    const off = new AuthCache(0);
    off.set('h', key, 0, off.generation());
    expect(off.get('h', 0)).toBeUndefined();
    const small = new AuthCache(60_000, 2);
    for (const h of ['a', 'b', 'c']) small.set(h, key, 0, small.generation());
    expect(small.get('a', 1)).toBeUndefined();
    expect(small.get('c', 1)).toMatchObject(key);
  });
});
