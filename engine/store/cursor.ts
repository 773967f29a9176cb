// Opaque list cursors (DESIGN §5: lists take `limit` and `cursor` and
// return `{items, nextCursor}`). A cursor is the sort key of the last item
// returned, base64url-encoded so clients treat it as a token rather than a
// number to do arithmetic on.
import { InvalidCursorError } from './errors.ts';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageRequest {
  /** 1..1000; default 50. */
  limit?: number;
  cursor?: string | null;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

export function encodeCursor(position: string): string {
  return Buffer.from(JSON.stringify({ p: position }), 'utf8').toString('base64url');
}

/** The position inside a cursor; `check` rejects positions of the wrong shape (e.g. a non-numeric key). */
export function decodeCursor(cursor: string, check: (position: string) => boolean = () => true): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && 'p' in parsed && typeof parsed.p === 'string' && check(parsed.p)) {
      return parsed.p;
    }
  } catch {
    // fall through: not one of ours
  }
  throw new InvalidCursorError();
}

export const isKey = (value: string): boolean => /^(0|[1-9][0-9]{0,18})$/.test(value) && BigInt(value) <= 9223372036854775807n;

/** Turns `limit + 1` fetched rows into a page: the extra row only says there is more. */
export function toPage<R, T>(fetched: R[], limit: number, position: (row: R) => string, map: (row: R) => T): Page<T> {
  const more = fetched.length > limit;
  const pageRows = more ? fetched.slice(0, limit) : fetched;
  return {
    items: pageRows.map(map),
    nextCursor: more ? encodeCursor(position(pageRows[pageRows.length - 1])) : null,
  };
}
