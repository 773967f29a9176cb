// What one evaluation may build: a counter of list items and of string
// characters that the guarded feelin entry points (feelin-guards.ts) charge
// while an evaluation runs, and the measure of a value written out that
// checks a result (and the arguments of builtins that copy deeply). One
// budget is active at a time; outside an evaluation nothing is charged.
import { charLimitError, FEEL_LIMITS, itemLimitError } from './eval-limits.ts';

export class SizeBudget {
  items = 0;
  chars = 0;

  constructor(
    readonly maxItems: number = FEEL_LIMITS.maxItems,
    readonly maxChars: number = FEEL_LIMITS.maxChars,
  ) {}

  chargeItems(count: number): void {
    this.items += count;
    if (this.items > this.maxItems) throw itemLimitError(this.maxItems);
  }

  chargeChars(count: number): void {
    this.chars += count;
    if (this.chars > this.maxChars) throw charLimitError(this.maxChars);
  }

  /** Throws unless `items` more list items and `chars` more characters still fit; charges nothing. */
  ensureRoom(items: number, chars: number): void {
    if (this.items + items > this.maxItems) throw itemLimitError(this.maxItems);
    if (this.chars + chars > this.maxChars) throw charLimitError(this.maxChars);
  }
}

let active: SizeBudget | undefined;

/** The budget of the evaluation running now, if any. */
export function activeBudget(): SizeBudget | undefined {
  return active;
}

/** Runs `run` with `budget` active; the previous one (if any) is restored afterwards. */
export function withSizeBudget<T>(budget: SizeBudget, run: () => T): T {
  const previous = active;
  active = budget;
  try {
    return run();
  } finally {
    active = previous;
  }
}

function isContextValue(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * How a value measures written out: a list item per element of a list and per
 * entry of a context, characters per string and per entry name. A part that
 * appears twice counts twice, which is what serializing it would cost; the
 * walk stops as soon as either allowance is exceeded, so it costs at most
 * `maxItems` steps whatever the value shares. Returns the allowance exceeded.
 */
export function exceededBy(value: unknown, maxItems: number, maxChars: number): 'items' | 'chars' | undefined {
  let items = 0;
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string') {
      chars += next.length;
      if (chars > maxChars) return 'chars';
      continue;
    }
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      items += next.length;
      if (items > maxItems) return 'items';
      for (let i = 0; i < next.length; i++) stack.push(next[i]);
    } else if (isContextValue(next)) {
      for (const key of Object.keys(next)) {
        items++;
        chars += key.length;
        if (items > maxItems) return 'items';
        if (chars > maxChars) return 'chars';
        stack.push(next[key]);
      }
    }
  }
  return undefined;
}
