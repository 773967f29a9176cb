// A tool as Orca declares it: name, a description written for a model, zod
// input and output schemas, and a run function over the API context. The
// same declaration registers the tool on the SDK's McpServer and feeds the
// published contract (contract.ts), so neither can drift from the other.
// Input is validated here, not by the SDK, so a bad argument is an
// INVALID_INPUT result naming the field (the SDK's own check has no code).
import type { CallToolResult, McpServer, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { AgentSession } from '../agents/types.ts';
import type { ApiContext } from '../context.ts';
import type { AccountLimit } from '../plugins/rate-limit.ts';
import { ApiError } from '../problem.ts';
import { inputErrors } from '../validation.ts';
import { errorResult, toolErrorOf } from './errors.ts';

/** What a running tool knows about its call. */
export interface ToolCall {
  ctx: ApiContext;
  /** The caller's network address (for the register/connect flood limits). */
  address: string;
  /** The live agent session, on tools that take `sessionId`. */
  session: AgentSession;
}

export interface ToolSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** True: `sessionId` is added to the input and resolved before run (every tool but register and connect). */
  session: boolean;
  annotations?: ToolAnnotations;
  run(args: z.output<I>, call: ToolCall): Promise<z.input<O>>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): ToolSpec {
  return spec as unknown as ToolSpec;
}

export const sessionIdSchema = z
  .string()
  .min(1)
  .max(200)
  .describe('The sessionId orca.connect returned. Not an API key and not the agent token: those are refused here.');

const sessionArgs = z.object({ sessionId: sessionIdSchema });

/** The input schema a client sees: the tool's own, with `sessionId` first where a session is needed. */
export function inputSchemaOf(spec: ToolSpec): z.ZodObject {
  // Refinements are not carried over, but JSON Schema cannot show them anyway; validate() checks them.
  return spec.session ? sessionArgs.extend(spec.input.shape) : spec.input;
}

type JsonSchemaOptions = { target: string; libraryOptions?: Record<string, unknown> };

/**
 * A zod schema as the SDK gets it: its JSON Schema converted once and kept
 * (the SDK converts on every tools/list, and the output schema on every
 * tools/call, of every per-request server), and for inputs a validate that
 * lets everything through, since the handler validates (parseArguments).
 */
function forSdk(schema: z.ZodObject, validates: boolean): StandardSchemaWithJSON {
  const standard = schema['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const memo = (io: 'input' | 'output') => (options: JsonSchemaOptions) => {
    const key = `${io} ${options.target}`;
    let json = converted.get(key);
    if (json === undefined) converted.set(key, (json = standard.jsonSchema[io](options as Parameters<typeof standard.jsonSchema.input>[0])));
    return json;
  };
  return {
    '~standard': {
      ...standard,
      validate: validates ? standard.validate : (value: unknown) => ({ value }),
      jsonSchema: { input: memo('input'), output: memo('output') },
    },
  } as StandardSchemaWithJSON;
}

/** Each tool's schemas in the SDK's form, built once per process rather than once per request. */
const sdkSchemas = new WeakMap<ToolSpec, { input: z.ZodObject; listedInput: StandardSchemaWithJSON; output: StandardSchemaWithJSON }>();

function schemasOf(spec: ToolSpec) {
  let schemas = sdkSchemas.get(spec);
  if (schemas === undefined) {
    const input = inputSchemaOf(spec);
    sdkSchemas.set(spec, (schemas = { input, listedInput: forSdk(input, false), output: forSdk(spec.output, true) }));
  }
  return schemas;
}

export interface CallInfo {
  address: string;
  log: FastifyBaseLogger;
  /** The per-account request limit (absent when off): a tool call counts as a REST request does. */
  limit?: AccountLimit;
  /** The tool a tools/call request names (plugin.ts registers only that one then). */
  calledTool?: string;
}

export function registerTools(server: McpServer, tools: readonly ToolSpec[], ctx: ApiContext, info: CallInfo): void {
  for (const spec of tools) {
    const schemas = schemasOf(spec);
    server.registerTool(
      spec.name,
      { title: spec.title, description: spec.description, inputSchema: schemas.listedInput, outputSchema: schemas.output, annotations: spec.annotations },
      async (args: unknown): Promise<CallToolResult> => {
        try {
          const parsed = parseArguments(spec, args ?? {});
          const session = spec.session ? await ctx.agents.session(parsed.sessionId as string) : (undefined as unknown as AgentSession);
          if (spec.session) await info.limit?.(session.account, info.log);
          const output = await spec.run(parsed, { ctx, address: info.address, session });
          return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output as Record<string, unknown> };
        } catch (error) {
          const toolError = toolErrorOf(error);
          if (toolError.code === 'INTERNAL') info.log.error({ err: error, tool: spec.name }, 'MCP tool failed');
          return errorResult(toolError);
        }
      },
    );
  }
}

/** The arguments as the tool's schema gives them back (with `sessionId`), or INVALID_INPUT naming every failing field. */
function parseArguments(spec: ToolSpec, args: unknown): Record<string, unknown> {
  const own = inputErrors(spec.input, args, '');
  const session = spec.session ? inputErrors(sessionArgs, args, '') : { errors: [], data: {} };
  const errors = [...session.errors, ...own.errors.filter((e) => !session.errors.some((s) => s.field === e.field))];
  if (errors.length > 0) {
    throw new ApiError('INVALID_INPUT', `Invalid arguments: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}.`, { errors });
  }
  return { ...(own.data as object), ...(session.data as object) };
}
