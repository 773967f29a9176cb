// How attribute text becomes FEEL or a literal. Camunda 8 marks FEEL with a
// leading '='; the compiled model stores FEEL source without it, so the
// runtime never has to look at the marker again.
import type { ValueExpr } from './types.ts';

/** True when `raw` is written as FEEL (`=…`), leading whitespace allowed. */
export function isFeel(raw: string): boolean {
  return raw.trimStart().startsWith('=');
}

/** FEEL source of a value that is always FEEL (conditions, loop expressions): a leading '=' is optional. */
export function feelSource(raw: string): string {
  const trimmed = raw.trim();
  return trimmed.startsWith('=') ? trimmed.slice(1).trim() : trimmed;
}

/** `=expr` → FEEL, anything else → the literal text. */
export function valueExpr(raw: string): ValueExpr {
  return isFeel(raw) ? { kind: 'feel', source: feelSource(raw) } : { kind: 'literal', value: raw.trim() };
}

/**
 * A FEEL string literal with the value `text`. JSON string syntax is a subset
 * of FEEL's (quotes, backslash escapes, \uXXXX), so JSON.stringify is exact.
 */
export function feelStringLiteral(text: string): string {
  return JSON.stringify(text);
}

/**
 * FEEL source for an io-mapping source: `=expr` is FEEL; anything else is a
 * literal string, turned into a FEEL string literal so the runtime always
 * evaluates FEEL. A missing source maps `null`.
 */
export function mappingSource(raw: string | undefined): { source: string; isExpression: boolean } {
  if (raw === undefined) return { source: 'null', isExpression: false };
  if (isFeel(raw)) return { source: feelSource(raw), isExpression: true };
  return { source: feelStringLiteral(raw), isExpression: false };
}
