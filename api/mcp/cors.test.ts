// The Origin policy of /mcp: no Origin (not a browser) passes, `null` never
// does, any other origin passes by default or when it is on the allow-list.
import { describe, expect, it } from 'vitest';
import { originAllowed, preflightHeaders } from './cors.ts';

describe('MCP origin policy', () => {
  it('allows any origin but null by default, and only listed ones with an allow-list', () => {
    expect(originAllowed(undefined, undefined)).toBe(true);
    expect(originAllowed('https://a.example', undefined)).toBe(true);
    expect(originAllowed('null', undefined)).toBe(false);
    const list = ['https://a.example'];
    expect(originAllowed('https://a.example', list)).toBe(true);
    expect(originAllowed('https://b.example', list)).toBe(false);
    expect(originAllowed('null', list)).toBe(false);
    expect(originAllowed(undefined, list)).toBe(true);
  });

  it('allows the MCP headers on preflight, and a requested Mcp-Param-* header, but no other', () => {
    const headers = preflightHeaders('https://a.example', 'content-type, mcp-param-region, x-evil');
    expect(headers['Access-Control-Allow-Headers'].split(', ')).toEqual(
      expect.arrayContaining(['Mcp-Session-Id', 'MCP-Protocol-Version', 'Last-Event-ID', 'Mcp-Method', 'Mcp-Name', 'mcp-param-region']),
    );
    expect(headers['Access-Control-Allow-Headers']).not.toContain('x-evil');
    expect(headers['Access-Control-Expose-Headers']).toBe('Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate');
  });
});
