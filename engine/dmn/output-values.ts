// An output's `outputValues` list as a priority order (PRIORITY and OUTPUT
// ORDER rank results by where their value appears in it), and the literal
// recognition shared with rule entries. The list is unary tests text; it is
// split at top-level commas so each entry can be compiled, and plain literals
// also get their constant (evaluated once by the FEEL module) so primitive
// values compare with === instead of a FEEL call.
import { compileExpression, compileUnaryTests } from '../feel/index.ts';
import type { FeelResult } from '../feel/index.ts';
import type { OutputValueTest } from './types.ts';

/** String (escapes allowed), number, boolean and null literals: FEEL's value for them is a JS primitive. */
const LITERAL = /^(?:"(?:[^"\\\r\n]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)$/;

/** Evaluates `source` once when it is a plain literal; undefined otherwise. */
export function literalValue(source: string): { value: unknown } | undefined {
  if (!LITERAL.test(source)) return undefined;
  const compiled = compileExpression(source);
  if (!compiled.ok) return undefined;
  const evaluated = compiled.value.evaluate({});
  if (!evaluated.ok || !isPrimitive(evaluated.value)) return undefined;
  return { value: evaluated.value };
}

export function compileOutputValues(text: string): FeelResult<OutputValueTest[] | undefined> {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: undefined };
  const entries: OutputValueTest[] = [];
  for (const part of splitTopLevel(trimmed)) {
    const source = part.trim();
    const tests = compileUnaryTests(source);
    if (!tests.ok) return { ok: false, error: `outputValues '${trimmed}': ${tests.error}` };
    const literal = literalValue(source);
    entries.push({ literal: literal !== undefined, value: literal?.value, tests: tests.value });
  }
  return { ok: true, value: entries };
}

/** 0 is the highest priority; a value the list does not name ranks after every listed one. */
export function priorityOf(entries: readonly OutputValueTest[], value: unknown): number {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry.literal && isPrimitive(value)) {
      if (entry.value === value) return i;
    } else {
      const tested = entry.tests.test(value, {});
      if (tested.ok && tested.value) return i;
    }
  }
  return entries.length;
}

/**
 * Values for which FEEL's test of a string/number literal is plain ===. Lists
 * are not: FEEL treats a singleton list as its element.
 */
export function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/** Splits at commas outside strings and brackets: `"a, b", [1..2], 3` → three parts. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
