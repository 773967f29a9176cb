// Random values both request generators draw (REST bodies in generate.ts,
// GraphQL documents in graphql.ts): keys, variables, and ids from the pools
// of what the server said exists.
import type { JsonValue, Pools } from './generate.ts';
import type { Rng } from './rng.ts';

export const VARIABLE_NAMES = ['orderId', 'amount', 'tracking', 'customer', 'items', 'approved'];

export function poolOf(pools: Pools, resource: string, of: 'ids' | 'cursors' = 'ids'): string[] {
  let list = pools[of].get(resource);
  if (list === undefined) pools[of].set(resource, (list = []));
  return list;
}

/** A key of the right shape for any partition (bits 55..62), usually matching nothing. */
export function randomKey(rng: Rng): string {
  return ((BigInt(rng.int(0, 7)) << 55n) | (BigInt(rng.int(1, 2 ** 30)) << 20n) | BigInt(rng.int(1, 2 ** 20))).toString();
}

export function variablesValue(rng: Rng): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  const count = rng.int(0, 4);
  for (let i = 0; i < count; i++) {
    const name = rng.chance(0.7) ? rng.pick(VARIABLE_NAMES) : `v${rng.word(5)}`;
    out[name] = rng.weighted<() => JsonValue>([
      [() => rng.word(rng.int(0, 12)), 4],
      [() => rng.int(-5, 2_000), 3],
      [() => rng.chance(0.5), 1],
      [() => null, 1],
      [() => ({ sku: rng.word(4), qty: rng.int(1, 9) }), 1],
      [() => [rng.int(0, 9), rng.word(3)], 1],
    ])();
  }
  return out;
}
