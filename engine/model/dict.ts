// Records keyed by ids and header names taken from the model. They have no
// prototype, so a key such as "__proto__" or "constructor" is an ordinary
// entry, and building them is cheaper than Object.fromEntries on large models.
// Read them with `record[key]`, Object.keys/entries or Object.hasOwn.

export function dictionary<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) out[key] = value;
  return out;
}
