// List paging (DESIGN §5): every list takes `limit` and `cursor` and answers
// `{items, nextCursor}`. A cursor the store did not hand out is invalid input
// on `query.cursor`, never a 500.
import { z } from 'zod';
import { InvalidCursorError } from '../../engine/index.ts';
import { ApiError } from '../problem.ts';

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Items per page, 1..1000 (default 50).'),
  cursor: z.string().min(1).max(512).optional().describe('The nextCursor of the previous page.'),
};

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** Runs a store read, turning a foreign cursor into a 400 on query.cursor. */
export async function readPage<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof InvalidCursorError) {
      throw new ApiError('INVALID_INPUT', 'The cursor was not handed out by this list; start again without one.', {
        errors: [{ field: 'query.cursor', message: 'not a cursor of this list' }],
      });
    }
    throw err;
  }
}
