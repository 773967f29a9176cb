// Value equality and ordering for hit policies (ANY compares rule outputs,
// MIN/MAX order them). FEEL results are JS primitives, arrays, plain objects
// (contexts) and Luxon date/time/duration objects; those expose `equals` and
// a numeric `valueOf`, which is what is used for them here.

export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  const equals = (a as { equals?: unknown }).equals;
  if (typeof equals === 'function') return Object.getPrototypeOf(a) === Object.getPrototypeOf(b) && equals.call(a, b) === true;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!valuesEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** A key that orders values of one kind: numbers, strings, booleans, or date/time objects. */
export function orderKey(value: unknown): { kind: string; key: number | string } | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isNaN(value) ? undefined : { kind: 'number', key: value };
    case 'string':
      return { kind: 'string', key: value };
    case 'boolean':
      return { kind: 'boolean', key: value ? 1 : 0 };
    case 'object': {
      if (value === null || Array.isArray(value)) return undefined;
      const prototype = Object.getPrototypeOf(value);
      if (prototype === Object.prototype || prototype === null) return undefined;
      const key = (value as { valueOf(): unknown }).valueOf();
      return typeof key === 'number' && !Number.isNaN(key) ? { kind: prototype.constructor?.name ?? 'object', key } : undefined;
    }
    default:
      return undefined;
  }
}

export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object' && Object.getPrototypeOf(value) !== Object.prototype && !Array.isArray(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Assignment that makes `__proto__` an ordinary key instead of replacing the prototype. */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
