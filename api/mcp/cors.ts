// CORS and the Origin check for /mcp, the only route that answers CORS
// (SPEC.md). The MCP spec requires servers to check Origin against DNS
// rebinding: a request whose Origin is not allowed gets 403. By default any
// origin is allowed, which is safe here because /mcp reads no cookies and no
// ambient credential: the API key, the agent token and the session id travel
// only in tool arguments. ORCA_MCP_ALLOWED_ORIGINS narrows it to a list. The
// `null` origin (sandboxed frames, file: pages, some redirects) is refused
// always: it cannot be told apart from any other opaque origin.

/** Request headers MCP clients send: the 2025 revisions' and the 2026-07-28 revision's (Mcp-Method, Mcp-Name, Mcp-Param-*). */
export const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'Accept',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Last-Event-ID',
  'Mcp-Method',
  'Mcp-Name',
  'DPoP',
];
/** Mcp-Param-<Name> headers mirror tool arguments, so their names vary: any requested one is allowed. */
const PARAM_HEADER = /^mcp-param-[a-z0-9-]+$/i;
export const EXPOSED_HEADERS = ['Mcp-Session-Id', 'MCP-Protocol-Version', 'WWW-Authenticate'];
const METHODS = 'GET, POST, DELETE, OPTIONS';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Whether a request with this Origin header may be served; no Origin (not a browser) always may. */
export function originAllowed(origin: string | undefined, allowList: readonly string[] | undefined): boolean {
  if (origin === undefined) return true;
  if (origin === 'null') return false;
  return allowList === undefined || allowList.includes(origin);
}

/** The CORS headers of every answer to an allowed cross-origin request. */
export function corsHeaders(origin: string): Record<string, string> {
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '), Vary: 'Origin' };
}

/** The preflight's headers: the standard list, and any requested Mcp-Param-* header. */
export function preflightHeaders(origin: string, requested: string | undefined): Record<string, string> {
  const params = (requested ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => PARAM_HEADER.test(name));
  return {
    ...corsHeaders(origin),
    'Access-Control-Allow-Methods': METHODS,
    'Access-Control-Allow-Headers': [...ALLOWED_HEADERS, ...params].join(', '),
    'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
  };
}
