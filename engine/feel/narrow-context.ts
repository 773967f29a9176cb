// The part of a context feelin needs for one source. feelin deep-copies the
// whole context it is given before every evaluation, so an instance holding
// a list of 400,000 numbers paid a few hundred milliseconds for every feelin
// expression, whether or not it read that list; that copy would also eat
// the deadline of an expression that loops. A variable whose name is a
// plain word (letters, digits, underscore) can only be read by a source that
// contains that word: feelin finds names exactly or after normalising
// spaces around `. / - ' + *`, which leaves a plain word as it is. So such
// variables are dropped when the word is absent; every other name (one with
// spaces or other characters, which can change how feelin parses the
// source) is kept.

/** What narrowContext compares names against: the plain words of a source. */
export type SourceWords = ReadonlySet<string>;

const PLAIN_NAME = /^[A-Za-z0-9_]+$/;

export function sourceWords(source: string): SourceWords {
  return new Set(source.split(/[^A-Za-z0-9_]+/).filter((word) => word !== ''));
}

function needed(key: string, words: SourceWords): boolean {
  return words.has(key) || !PLAIN_NAME.test(key);
}

/** `context` without the plain-word variables `words` never mentions; `context` itself when nothing is dropped. */
export function narrowContext<C extends Record<string, unknown>>(context: C, words: SourceWords): C {
  const keys = Object.keys(context);
  let drop = false;
  for (const key of keys) {
    if (!needed(key, words)) {
      drop = true;
      break;
    }
  }
  if (!drop) return context;
  // fromEntries, not assignment: an own `__proto__` variable stays a key.
  return Object.fromEntries(keys.filter((key) => needed(key, words)).map((key) => [key, context[key]])) as C;
}
