// Both official MCP TypeScript clients against a running service: the v2
// `@modelcontextprotocol/client` (negotiating the 2026-07-28 revision) and
// the v1 `@modelcontextprotocol/sdk` Client (the 2025 handshake), behind
// one small face, plus the reading of a tool result (structuredContent, or
// the {error: {code, message}} of a failed call).
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type ClientKind = 'v2' | 'v1';

export interface ToolOutcome {
  isError: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  error?: { code: string; message: string; errors?: { field: string; message: string }[]; [key: string]: any };
}

export interface McpClient {
  kind: ClientKind;
  listTools(): Promise<{ name: string; title?: string; description?: string; inputSchema: unknown; outputSchema?: unknown; annotations?: unknown }[]>;
  call(name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
}

interface RawResult {
  isError?: boolean;
  structuredContent?: unknown;
  content?: { type: string; text?: string }[];
}

function outcomeOf(result: RawResult): ToolOutcome {
  if (result.isError) {
    const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
    let error: ToolOutcome['error'];
    try {
      error = (JSON.parse(text) as { error: ToolOutcome['error'] }).error;
    } catch {
      error = { code: 'UNPARSED', message: text };
    }
    return { isError: true, data: undefined, error };
  }
  return { isError: false, data: result.structuredContent };
}

export async function connectMcp(kind: ClientKind, baseUrl: string): Promise<McpClient> {
  const url = new URL('/mcp', baseUrl);
  if (kind === 'v2') {
    const client = new ClientV2({ name: 'orca-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(url));
    return {
      kind,
      listTools: async () => (await client.listTools()).tools,
      call: async (name, args) => outcomeOf((await client.callTool({ name, arguments: args })) as RawResult),
      close: () => client.close(),
    };
  }
  const client = new ClientV1({ name: 'orca-test', version: '1.0.0' });
  await client.connect(new TransportV1(url));
  return {
    kind,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args) => outcomeOf((await client.callTool({ name, arguments: args })) as RawResult),
    close: () => client.close(),
  };
}
