// sharedReads: concurrent reads of one object share one GET, an error
// reaches every caller that shared it, and nothing is kept afterwards.
import { describe, expect, it } from 'vitest';
import { sharedReads } from '../../operator/kube/shared-reads.ts';

/** A GET whose answers the test hands out by hand, recording what was asked. */
function heldGets() {
  const asked: string[] = [];
  const answers: { resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
  const get = (key: string) => {
    asked.push(key);
    return new Promise<string>((resolve, reject) => answers.push({ resolve, reject }));
  };
  return { asked, answers, get };
}

describe('sharedReads', () => {
  it('sends one GET for concurrent reads of the same key and one per distinct key', async () => {
    const { asked, answers, get } = heldGets();
    const read = sharedReads(get);
    const a = [read('secrets/key'), read('secrets/key'), read('secrets/key')];
    const other = read('secrets/other');
    expect(asked).toEqual(['secrets/key', 'secrets/other']);
    answers[0].resolve('v1');
    answers[1].resolve('o1');
    expect(await Promise.all(a)).toEqual(['v1', 'v1', 'v1']);
    expect(await other).toBe('o1');
  });

  it('asks again once the answer is in, so a changed object is seen', async () => {
    const { asked, answers, get } = heldGets();
    const read = sharedReads(get);
    const first = read('secrets/key');
    answers[0].resolve('v1');
    expect(await first).toBe('v1');
    const second = read('secrets/key');
    expect(asked).toEqual(['secrets/key', 'secrets/key']);
    answers[1].resolve('v2');
    expect(await second).toBe('v2');
  });

  it('gives a failed GET to every caller that shared it and retries on the next read', async () => {
    const { asked, answers, get } = heldGets();
    const read = sharedReads(get);
    const both = [read('secrets/key'), read('secrets/key')];
    answers[0].reject(new Error('503 from the API server'));
    for (const r of await Promise.allSettled(both)) expect(r).toMatchObject({ status: 'rejected', reason: { message: '503 from the API server' } });
    const again = read('secrets/key');
    expect(asked).toHaveLength(2);
    answers[1].resolve('v1');
    expect(await again).toBe('v1');
  });
});
