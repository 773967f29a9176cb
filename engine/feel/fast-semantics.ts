// FEEL value semantics for the fast path, mirroring feelin 8's interpreter
// (equals, range membership, three-valued and/or, name lookup) for plain
// values only: null, numbers, strings, booleans and plain JSON objects.
// Whenever a value or context falls outside what is mirrored here (temporals,
// lists in comparisons, class instances, names feelin would read through
// normalisation or as a multi-word name), the fast path bails out and the
// caller re-evaluates with feelin, so the two can never disagree. One known
// difference, on purpose: feelin deep-copies the whole context before it
// evaluates, so a cyclic value anywhere in it makes feelin fail; the fast path
// only reads the variables the expression names.
import { isPlainName, RESERVED_WORDS } from './fast-tokenizer.ts';

/** Thrown (never escapes this module's callers) when feelin must decide instead. */
export const BAIL: unique symbol = Symbol('feel-fast-path-bail');

export function bail(): never {
  throw BAIL;
}

const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Decides whether the keys of a context (or of a nested object a path walks
 * into) could make feelin read the source differently from the fast parser.
 * feelin joins tokens into one name when the context has a key like
 * `a and b`, `a.b` or `true`, and finds `a` under a key `" a "`; every such key
 * starts (after optional whitespace) with one of the words of the source. Only
 * keys starting with one of those letters, or with a non-name character, are
 * inspected, so the scan stays cheap for ordinary variables.
 */
export class NameGuard {
  private readonly inspect = new Uint8Array(128);

  constructor(words: Iterable<string>) {
    for (let c = 0; c < 128; c++) {
      const isNameChar = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
      this.inspect[c] = isNameChar ? 0 : 1;
    }
    for (const word of words) this.inspect[word.charCodeAt(0)] = 1;
  }

  /** False when `obj` has a key that might change how feelin parses or resolves the source. */
  safe(obj: object): boolean {
    const inspect = this.inspect;
    for (const key in obj) {
      const c = key.charCodeAt(0);
      if ((c >= 128 || inspect[c] === 1) && key !== '?' && (!isPlainName(key) || RESERVED_WORDS.has(key))) return false;
    }
    return true;
  }
}

/** A top-level variable as feelin sees it: an own enumerable entry, else a builtin, else null. */
export function lookupVariable(ctx: Record<string, unknown>, name: string, isBuiltin: boolean): unknown {
  const value = ctx[name];
  if (value === undefined || !propertyIsEnumerable.call(ctx, name)) {
    // feelin would answer the builtin function of that name
    if (isBuiltin) bail();
    return null;
  }
  return value;
}

/** `target.name` as feelin's PathExpression sees it, for plain targets. */
export function lookupProperty(target: unknown, name: string, guard: NameGuard): unknown {
  if (target === null || target === undefined) return null;
  const type = typeof target;
  if (type === 'number' || type === 'string' || type === 'boolean') return null;
  // lists project the path over their items; temporals and other objects have their own properties
  if (!isPlainObject(target) || !guard.safe(target)) bail();
  const value = target[name];
  return value === undefined || !propertyIsEnumerable.call(target, name) ? null : value;
}

function isScalar(value: unknown): value is number | string | boolean {
  const type = typeof value;
  return type === 'number' || type === 'string' || type === 'boolean';
}

/** feelin's `equals` for null and scalars: null on a type mismatch. */
export function feelEquals(a: unknown, b: unknown): boolean | null {
  if (a === null) return b === null;
  if (b === null) return false;
  if (!isScalar(a) || !isScalar(b)) bail();
  if (typeof a !== typeof b) return null;
  return a === b;
}

/** feelin's range comparator: plain JavaScript ordering of the raw values. */
function cmp(a: unknown, b: unknown): number {
  // feelin compares mixed scalars with JavaScript's own coercions; so must we
  const x = a as number;
  const y = b as number;
  if (x < y) return -1;
  if (x > y) return 1;
  return 0;
}

function isRangeBound(value: unknown): value is number | string {
  return typeof value === 'number' || typeof value === 'string';
}

/**
 * `value op bound` for `<`, `<=`, `>`, `>=`: feelin builds an open-ended range
 * from `bound` and tests membership, which gives null for a null value or
 * bound and plain JavaScript ordering otherwise (so `"abc" <= 5` is true).
 */
export function feelOrder(op: '<' | '<=' | '>' | '>=', value: unknown, bound: unknown): boolean | null {
  if (bound === null) return null;
  // a boolean bound makes feelin fail ("unsupported range"); other types are temporal business
  if (!isRangeBound(bound)) bail();
  if (value === null) return null;
  if (!isScalar(value)) bail();
  const c = cmp(value, bound);
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

/** Membership of `value` in the interval `open start .. end close`, as feelin's createRange + includes. */
export function intervalIncludes(startBracket: boolean, endBracket: boolean, start: unknown, end: unknown, value: unknown): boolean | null {
  if ((start !== null && !isRangeBound(start)) || (end !== null && !isRangeBound(end))) bail();
  if (start !== null && end !== null && typeof start !== typeof end) bail();
  if (start === null && end === null) return null;
  if (value === null) return null;
  if (!isScalar(value)) bail();
  let low = start;
  let high = end;
  let lowIncluded = start !== null && startBracket;
  let highIncluded = end !== null && endBracket;
  // feelin normalises a descending range such as [10..1]
  if (low !== null && high !== null && cmp(low, high) > 0) {
    [low, high] = [high, low];
    [lowIncluded, highIncluded] = [highIncluded, lowIncluded];
  }
  const afterLow = low === null || (lowIncluded ? cmp(value, low) >= 0 : cmp(value, low) > 0);
  const beforeHigh = high === null || (highIncluded ? cmp(value, high) <= 0 : cmp(value, high) < 0);
  return afterLow && beforeHigh;
}

/** FEEL three-valued `and`: anything that is not a boolean counts as null. */
export function feelAnd(a: unknown, b: unknown): boolean | null {
  const x = typeof a === 'boolean' ? a : null;
  const y = typeof b === 'boolean' ? b : null;
  if (x === false || y === false) return false;
  if (x === true && y === true) return true;
  return null;
}

/** FEEL three-valued `or`. */
export function feelOr(a: unknown, b: unknown): boolean | null {
  const x = typeof a === 'boolean' ? a : null;
  const y = typeof b === 'boolean' ? b : null;
  if (x === true || y === true) return true;
  if (x === false && y === false) return false;
  return null;
}

/** The builtin `not(negand)`: null for anything but a boolean. */
export function feelNot(a: unknown): boolean | null {
  return typeof a === 'boolean' ? !a : null;
}

/**
 * A value read from the context as feelin returns it: feelin deep-copies the
 * context first (plain objects and lists), converting dates and temporals on
 * the way. Plain JSON is copied the same way; anything else bails.
 */
export function asResult(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function') bail();
    return value;
  }
  if (Array.isArray(value)) return value.map(asResult);
  if (!isPlainObject(value)) bail();
  // fromEntries, like feelin, so a key such as `__proto__` stays a plain entry
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, asResult(entry)]));
}
