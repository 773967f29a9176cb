// The hooks that bound what feelin builds, installed once when this module
// is imported. feelin 8 offers no options for limits and its builtins table
// is not exported, but the two exported classes every loop and every call
// goes through are: FeelRange (a `for`/`some`/`every` over `a..b`
// enumerates it with `map`) and FeelFunction (every call of a builtin or of
// a FEEL-defined function goes through `invoke`). So, and only here:
//
// - FeelRange.prototype.map enumerates number ranges itself, charging each
//   element to the active evaluation's SizeBudget (feelin's own loop also
//   never ends on `1.5..3` or `(1..1]`); other ranges keep feelin's code.
// - FeelFunction.prototype.invoke runs a replacement for some builtins
//   (RE2 for the regular-expression ones, a size check before the ones that
//   copy deeply or concatenate) and charges the list or string any builtin
//   returns to the budget.
//
// The builtins are recognised by identity (feelin hands out its builtin when
// a bare name is evaluated), so a variable of the same name still shadows
// one exactly as in feelin. If a feelin upgrade renames a builtin this
// module relies on, importing it throws rather than running unguarded.
import { evaluate as feelinEvaluate, FeelFunction, FeelRange } from 'feelin';
import { charLimitError, itemLimitError } from './eval-limits.ts';
import { matches, replace, split } from './regex.ts';
import { FEELIN_BUILTIN_NAMES } from './builtin-names.ts';
import { activeBudget, exceededBy, SizeBudget } from './size-budget.ts';

type Builtin = ((...args: unknown[]) => unknown) & { $args?: string[] };

function lookUp(name: string): Builtin | undefined {
  const value: unknown = feelinEvaluate(name, {}).value;
  return typeof value === 'function' ? (value as Builtin) : undefined;
}

function required(name: string): Builtin {
  const fn = lookUp(name);
  if (fn === undefined || !Array.isArray(fn.$args)) throw new Error(`feelin has no builtin '${name}' (engine/feel/feelin-guards.ts needs it)`);
  return fn;
}

/** Every builtin, by the function feelin calls. */
const BUILTINS = new Set<unknown>(FEELIN_BUILTIN_NAMES.map(lookUp).filter((fn) => fn !== undefined));

function budgetNow(): SizeBudget {
  return activeBudget() ?? new SizeBudget();
}

function shallowSize(values: readonly unknown[]): number {
  let size = 0;
  for (const value of values) size += Array.isArray(value) ? value.length : 1;
  return size;
}

/** Before a builtin that copies its arguments deeply: refuse when the copy could not fit. */
function checkDeep(value: unknown, budget: SizeBudget): void {
  const exceeded = exceededBy(value, budget.maxItems - budget.items, budget.maxChars - budget.chars);
  if (exceeded === 'items') throw itemLimitError(budget.maxItems);
  if (exceeded === 'chars') throw charLimitError(budget.maxChars);
}

function stringJoinChars(list: unknown, delimiter: unknown): number {
  const items = Array.isArray(list) ? list : [list];
  let chars = typeof delimiter === 'string' ? delimiter.length * Math.max(0, items.length - 1) : 0;
  for (const item of items) if (typeof item === 'string') chars += item.length;
  return chars;
}

/** Checks that run before the builtin, by name; each returns nothing or throws a FeelLimitError. */
const PRECHECKS: Record<string, (args: unknown[], budget: SizeBudget) => void> = {
  flatten: (args, budget) => checkDeep(args[0], budget),
  string: (args, budget) => checkDeep(args[0], budget),
  'string join': (args, budget) => budget.ensureRoom(0, stringJoinChars(args[0], args[1])),
  concatenate: (args, budget) => budget.ensureRoom(shallowSize(args), 0),
  append: (args, budget) => budget.ensureRoom(shallowSize(args), 0),
  union: (args, budget) => budget.ensureRoom(shallowSize(args), 0),
  'insert before': (args, budget) => budget.ensureRoom(shallowSize(args), 0),
};

const REGEX_BUILTINS: Record<string, (...args: unknown[]) => unknown> = { matches, replace, split };

/** Builtin → the FeelFunction invoked in its place (same parameter names, so named arguments still bind). */
const REPLACEMENTS = new Map<unknown, FeelFunction>();
for (const [name, impl] of Object.entries(REGEX_BUILTINS)) {
  const original = required(name);
  REPLACEMENTS.set(original, new FeelFunction(impl, original.$args as string[]));
}
for (const [name, check] of Object.entries(PRECHECKS)) {
  const original = required(name);
  REPLACEMENTS.set(
    original,
    new FeelFunction((...args: unknown[]) => {
      check(args, budgetNow());
      return original(...args);
    }, original.$args as string[]),
  );
}

/**
 * Before any builtin: its string arguments must fit what is left of the
 * string budget. A string built with `+` is a rope that costs nothing until
 * a builtin reads it; this refuses to let one flatten a rope longer than an
 * evaluation may build.
 */
function checkStringArguments(args: unknown, budget: SizeBudget): void {
  const values: unknown[] = Array.isArray(args) ? args : typeof args === 'object' && args !== null ? Object.values(args) : [];
  let chars = 0;
  for (const value of values) if (typeof value === 'string') chars += value.length;
  if (chars > 0) budget.ensureRoom(0, chars);
}

function charge(budget: SizeBudget, result: unknown): void {
  if (typeof result === 'string') budget.chargeChars(result.length);
  else if (Array.isArray(result)) budget.chargeItems(result.length);
}

// A second copy of this module (a test runner re-importing it) must wrap
// feelin's own methods, not the first copy's wrappers.
const UNGUARDED = Symbol.for('orca.feel.unguarded');
type Guarded<F> = F & { [UNGUARDED]?: F };

const originalInvoke = (FeelFunction.prototype.invoke as Guarded<FeelFunction['invoke']>)[UNGUARDED] ?? FeelFunction.prototype.invoke;
const originalMap = (FeelRange.prototype.map as Guarded<FeelRange['map']>)[UNGUARDED] ?? FeelRange.prototype.map;

function guardedInvoke(this: FeelFunction, contextOrArgs: unknown): unknown {
  const budget = activeBudget();
  const builtin = budget !== undefined && BUILTINS.has(this.fn);
  if (builtin) checkStringArguments(contextOrArgs, budget);
  const replacement = REPLACEMENTS.get(this.fn);
  const result: unknown = originalInvoke.call(replacement ?? this, contextOrArgs);
  if (builtin) charge(budget, result);
  return result;
}

function guardedMap<T>(this: FeelRange, fn: (value: unknown) => T): T[] {
  const { start, end } = this;
  if (this.valueType !== 'number' || typeof start !== 'number' || typeof end !== 'number') return originalMap.call(this, fn) as T[];
  const budget = budgetNow();
  // Refuse a range too long for the budget before building any of it (at
  // most two elements fewer than the span, when both ends are excluded).
  budget.ensureRoom(Math.max(0, Math.floor(Math.abs(end - start)) - 1), 0);
  const direction = start > end ? -1 : 1;
  const out: T[] = [];
  // start + k·direction rather than feelin's running sum: no drift, and the
  // loop ends once past `end` even when no step lands on it exactly.
  for (let k = 0; ; k++) {
    const value = start + k * direction;
    if (direction * (value - end) > 0) break;
    if (k === 0 && !this['start included']) continue;
    if (value === end && !this['end included']) break;
    budget.chargeItems(1);
    out.push(fn(value));
    if (value === end) break;
  }
  return out;
}

Object.defineProperty(guardedInvoke, UNGUARDED, { value: originalInvoke });
Object.defineProperty(guardedMap, UNGUARDED, { value: originalMap });
FeelFunction.prototype.invoke = guardedInvoke;
FeelRange.prototype.map = guardedMap as FeelRange['map'];
