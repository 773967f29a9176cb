// How a failing tool call is answered: a tool result with `isError` and a
// stable code a client can branch on (MCP puts domain failures in the result,
// not in the JSON-RPC error). The codes are the REST problem codes
// (api/problem.ts), with two of MCP's own: CREDITS_EXHAUSTED for
// OUT_OF_CREDITS, and the agent session's SESSION_ENDED / SESSION_NOT_FOUND.
// Anything unexpected is INTERNAL without internals, logged by the caller.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { AgentSessionError } from '../agents/types.ts';
import { toApiError } from '../plugins/errors.ts';
import type { FieldError, ProblemCode } from '../problem.ts';

export type ToolErrorCode = Exclude<ProblemCode, 'OUT_OF_CREDITS'> | 'CREDITS_EXHAUSTED' | 'SESSION_ENDED' | 'SESSION_NOT_FOUND';

export interface ToolError {
  code: ToolErrorCode;
  message: string;
  /** The failing arguments, named as paths into `arguments` (e.g. `variables.amount`). */
  errors?: FieldError[];
  /** When a retry may succeed (UNAVAILABLE, RATE_LIMITED). */
  retryAfterSeconds?: number;
  [key: string]: unknown;
}

export function toolErrorOf(error: unknown): ToolError {
  // The agents service words these for the caller already (what happened, what to do).
  if (error instanceof AgentSessionError) return { code: error.code, message: error.message };
  const apiError = toApiError(error);
  const { errors, retryAfterSeconds, ...extra } = apiError.extra;
  return {
    ...extra,
    code: apiError.code === 'OUT_OF_CREDITS' ? 'CREDITS_EXHAUSTED' : apiError.code,
    message: apiError.detail,
    ...(errors ? { errors } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}

/**
 * The result of a failed call: the error as JSON text, which a model reads
 * and a program parses. No structuredContent: clients check it against the
 * tool's output schema, which describes success.
 */
export function errorResult(error: ToolError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}
