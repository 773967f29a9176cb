// The lean MCP load generator `bench:mcp` uses by default: tools/call as
// plain JSON-RPC over HTTP on an undici pool, as a load tool such as k6
// would send it. It does not invent the wire format: the official SDK
// client makes one real tools/call first, and its headers and `_meta`
// envelope become the template every later call copies (only the id, the
// tool name and its arguments change). The point is to leave the 2 cores to
// the server: the SDK client's own per-call work (web Request/Response
// objects, schema checks of each result) otherwise competes with it.
import type { Client } from '@modelcontextprotocol/client';
import { Pool } from 'undici';

/** What the SDK client sent for a tools/call: the protocol headers and the request's `_meta`. */
export interface CallTemplate {
  headers: Record<string, string>;
  meta: unknown;
}

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch for the SDK client's transport that records the last tools/call it
 * sends. `template()` is undefined until the client has made one.
 */
export function recordingFetch(): { fetch: FetchLike; template(): CallTemplate | undefined } {
  let recorded: CallTemplate | undefined;
  const recording: FetchLike = async (url, init) => {
    if (typeof init?.body === 'string') {
      const message = JSON.parse(init.body) as { method?: string; params?: { _meta?: unknown } };
      if (message.method === 'tools/call') {
        const headers: Record<string, string> = {};
        new Headers(init.headers).forEach((value, name) => void (headers[name] = value));
        recorded = { headers, meta: message.params?._meta };
      }
    }
    return fetch(url, init);
  };
  return { fetch: recording, template: () => recorded };
}

export interface LeanMcp {
  /** The tool's structuredContent; throws on a JSON-RPC error or an isError result. */
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export function leanMcp(baseUrl: string, template: CallTemplate, connections: number): LeanMcp {
  const pool = new Pool(baseUrl, { connections, pipelining: 1 });
  const path = new URL('/mcp', baseUrl).pathname;
  let nextId = 1;
  return {
    async call(name, args) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: template.meta } });
      const headers = { ...template.headers, 'mcp-name': name };
      const res = await pool.request({ method: 'POST', path, headers, body });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !(res.headers['content-type'] ?? '').includes('application/json')) {
        throw new Error(`bench:mcp: ${name} answered ${res.statusCode} ${res.headers['content-type']} ${text.slice(0, 300)}`);
      }
      const message = JSON.parse(text) as { error?: unknown; result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown } };
      if (message.error !== undefined || message.result === undefined) throw new Error(`bench:mcp: ${name} failed: ${text.slice(0, 300)}`);
      if (message.result.isError) throw new Error(`bench:mcp: ${name} failed: ${JSON.stringify(message.result.content)}`);
      return message.result.structuredContent ?? {};
    },
    close: () => pool.close(),
  };
}

/** Makes the SDK client send one real tools/call so `recording` holds its template. */
export async function templateFrom(client: Client, recording: ReturnType<typeof recordingFetch>, sessionId: string): Promise<CallTemplate> {
  await client.callTool({ name: 'orca.list_process_definitions', arguments: { sessionId } });
  const template = recording.template();
  if (template === undefined) throw new Error('bench:mcp: the SDK client sent no tools/call to copy');
  return template;
}
