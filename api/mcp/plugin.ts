// The MCP endpoint at /mcp (issue #18) as its own fastify plugin: the
// official SDK's stateless Streamable HTTP handler (createMcpHandler), which
// builds a fresh McpServer with Orca's tools for each request and serves the
// 2026-07-28 revision and, statelessly, the 2025 ones. Nothing lives in the
// transport between requests: ACN sessions are Orca's (ctx.agents), so any
// pod serves any call. The body is parsed once, here, and handed to the SDK
// as `parsedBody` (it would otherwise clone the web Request and read and
// parse it again); a body that does not parse reaches the SDK as the raw
// text, so malformed JSON-RPC gets the SDK's JSON-RPC error. The SDK's web
// Response goes out through fastify's reply, keeping the CORS headers this
// plugin adds (cors.ts). GET /mcp/tools.json serves the contract.
import { Readable } from 'node:stream';
import { createMcpHandler, isJsonContentType, McpServer } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.ts';
import type { AccountLimit } from '../plugins/rate-limit.ts';
import { toolContract } from './contract.ts';
import { corsHeaders, originAllowed, preflightHeaders } from './cors.ts';
import { registerTools, type CallInfo, type ToolSpec } from './tool.ts';
import { tools } from './tools/index.ts';

const INSTRUCTIONS =
  'Orca runs BPMN processes. First call orca.register once with an account API key to get an agent token (keep it), then orca.connect ' +
  'with the token to get a sessionId, and pass that sessionId to every other tool. Deploy a model, start instances, work their jobs ' +
  'and tasks, follow them with orca.get_instance. Failures come back as results with isError and a JSON {error: {code, message}}.';

/** `limit`: the per-account request limit REST calls take from; each tool call with a session takes from it too. */
export async function registerMcp(app: FastifyInstance, ctx: ApiContext, limit?: AccountLimit): Promise<void> {
  // The factory is handed the web Request this plugin built, so that is where a call's facts travel. An
  // AsyncLocalStorage would do too, but on Node 20 it turns on promise hooks that tax every promise in the process.
  const calls = new WeakMap<Request, CallInfo>();
  const handler = createMcpHandler(
    ({ requestInfo }) => {
      const server = new McpServer({ name: 'orca', version: '0.1.0' }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
      const info = requestInfo === undefined ? undefined : calls.get(requestInfo);
      // Only a body that never parsed reaches the factory as the SDK's clone of the Request: no tool can be
      // called then (the SDK answers the parse error), so that server goes without tools.
      if (info !== undefined) registerTools(server, toolsFor(info.calledTool), ctx, info);
      return server;
    },
    // The default response mode ('auto') answers JSON: the tools send nothing before their result.
    { maxRequestBodySize: ctx.config.bodyLimit, onerror: (error) => app.log.debug({ err: error }, 'MCP request refused') },
  );
  app.addHook('onClose', async () => handler.close());

  await app.register(async (scope) => {
    // The SDK reads the body itself: it answers bad JSON and a wrong media type as JSON-RPC errors.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    scope.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      if (!originAllowed(origin, ctx.config.mcpAllowedOrigins)) {
        // MCP spec (Streamable HTTP, security): an invalid Origin is a 403; no CORS headers, so the page learns nothing.
        return reply
          .code(403)
          .type('application/json')
          .send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `Origin '${origin}' is not allowed.` } });
      }
      if (origin !== undefined) reply.headers(corsHeaders(origin));
    });

    scope.options('/mcp', { config: { auth: 'none' } }, async (request, reply) => {
      const origin = request.headers.origin;
      if (origin !== undefined) reply.headers(preflightHeaders(origin, request.headers['access-control-request-headers']));
      return reply.code(204).send();
    });

    scope.route({
      method: ['GET', 'POST', 'DELETE'],
      url: '/mcp',
      config: { auth: 'none' },
      handler: async (request, reply) => {
        const body = bodyOf(request);
        const webRequest = webRequestOf(request, body);
        calls.set(webRequest, { address: request.ip, log: request.log, limit, calledTool: calledToolOf(body.parsed) });
        const response = await handler.fetch(webRequest, body.parsed === undefined ? undefined : { parsedBody: body.parsed });
        return sendResponse(reply, response);
      },
    });

    scope.get('/mcp/tools.json', { config: { auth: 'none' } }, async () => toolContract());
  });
}

const toolsByName = new Map(tools.map((spec) => [spec.name, [spec]]));

/**
 * The tools a request's server needs: a tools/call needs only the tool it
 * names, which saves registering the other 21 on the calls that matter. Any
 * other request, or a name Orca does not have, gets every tool, so
 * tools/list and the SDK's "tool not found" answer are what they always were.
 */
function toolsFor(calledTool: string | undefined): readonly ToolSpec[] {
  return (calledTool === undefined ? undefined : toolsByName.get(calledTool)) ?? tools;
}

/** The tool a single tools/call request names, if the body is one. */
function calledToolOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
}

interface Body {
  /** The JSON value of a POST's JSON body, when it parses. */
  parsed?: unknown;
  /** The raw text, for the SDK to read and refuse itself (bad JSON, an empty body, a wrong media type). */
  text?: string;
}

function bodyOf(request: FastifyRequest): Body {
  if (request.method !== 'POST' || typeof request.body !== 'string') return {};
  const text = request.body;
  // A wrong media type is the SDK's 415 before it reads anything: not worth parsing.
  if (text.length === 0 || !isJsonContentType(request.headers['content-type'] ?? null)) return { text };
  try {
    return { parsed: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
}

function webRequestOf(request: FastifyRequest, body: Body): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = `http://${request.host || 'localhost'}${request.url}`;
  return new Request(url, { method: request.method, headers, body: body.text });
}

async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    // fastify sets the length (or chunks a stream) itself.
    if (name !== 'content-length' && name !== 'transfer-encoding') reply.header(name, value);
  });
  if (response.body === null) return reply.send();
  // The 2025 stateless leg may answer a request as an event stream: passed on as it comes.
  if (response.headers.get('content-type')?.includes('text/event-stream')) return reply.send(Readable.fromWeb(response.body as never));
  return reply.send(Buffer.from(await response.arrayBuffer()));
}
