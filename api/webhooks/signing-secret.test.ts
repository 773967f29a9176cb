// Signing secrets round-trip through their stored form; a sealed one is not
// readable without the key, and a wrong key is refused rather than misread.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, secretSealer, signingKeyCache, signingKeyOf } from './signing-secret.ts';

describe('webhook signing secrets', () => {
  it('have the Standard Webhooks shape: whsec_ and 24 bytes of base64', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(signingKeyOf(secret)).toHaveLength(24);
  });

  it('are sealed with a configured key and opened only with it', () => {
    const key = randomBytes(32).toString('base64');
    const secret = newSigningSecret();
    const stored = secretSealer(key).seal(secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(secretSealer(key).open(stored)).toBe(secret);
    expect(() => secretSealer(randomBytes(32).toString('base64')).open(stored)).toThrow();
    expect(() => secretSealer().open(stored)).toThrow(/ORCA_WEBHOOK_SECRET_KEY/);
  });

  it('are stored plainly without a key, and a key of the wrong length is refused', () => {
    const secret = newSigningSecret();
    expect(secretSealer().open(secretSealer().seal(secret))).toBe(secret);
    expect(() => secretSealer(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });

  it('are opened once per stored form by the key cache, a rotated one anew, and one that cannot be opened throws each time', () => {
    const key = randomBytes(32).toString('base64');
    const sealer = secretSealer(key);
    let opened = 0;
    const counting = { seal: sealer.seal, open: (stored: string) => (opened++, sealer.open(stored)) };
    const keyOf = signingKeyCache(counting, 2);
    const [first, second, third] = [newSigningSecret(), newSigningSecret(), newSigningSecret()];
    const [a, b, c] = [sealer.seal(first), sealer.seal(second), sealer.seal(third)];
    expect(keyOf(a)).toEqual(signingKeyOf(first));
    expect(keyOf(a)).toEqual(signingKeyOf(first));
    expect(opened).toBe(1);
    expect(keyOf(b)).toEqual(signingKeyOf(second));
    expect(opened).toBe(2);
    // Past its bound the cache starts over: still right, opened again.
    expect(keyOf(c)).toEqual(signingKeyOf(third));
    expect(keyOf(a)).toEqual(signingKeyOf(first));
    expect(opened).toBe(4);
    const foreign = secretSealer(randomBytes(32).toString('base64')).seal(first);
    expect(() => keyOf(foreign)).toThrow();
    expect(() => keyOf(foreign)).toThrow();
  });
});
