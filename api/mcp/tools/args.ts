// Argument schemas several tools share: paging as JSON numbers (not the
// query-string coercion of the REST lists) and the read-only annotation.
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { pageQuery } from '../../services/pages.ts';

export const pageArgs = {
  limit: z.number().int().min(1).max(1000).optional().describe('Items per page, 1..1000 (default 50).'),
  cursor: pageQuery.cursor.describe('The nextCursor of the previous page, to read the next one.'),
};

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
export const WRITES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
