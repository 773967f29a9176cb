// Reads of one object that are already on their way, shared: when many
// resources name the same Secret or ConfigMap (a burst of applies), the
// workers wait for one GET instead of each queueing their own on the API
// server. Nothing is kept once the answer is in, so a read that joins is
// answered at most one round trip earlier than its own GET would have been,
// and the next read after that asks again.

/** Wraps `get` so that concurrent calls with the same key share one call. */
export function sharedReads<T>(get: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const pending = new Map<string, Promise<T>>();
  return (key) => {
    let answer = pending.get(key);
    if (answer === undefined) {
      answer = get(key);
      pending.set(key, answer);
      const settled = () => void pending.delete(key);
      answer.then(settled, settled);
    }
    return answer;
  };
}
