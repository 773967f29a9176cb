// The published MCP contract: GET /mcp/tools.json, docs/mcp-tools.json
// (npm run mcp:contract) and what both real clients get from tools/list are
// the same tools with the same input and output JSON Schemas.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_PATH, contractText } from '../../scripts/mcp-contract.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { connectMcp, type ClientKind } from './mcp-support.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await apiFixture();
});
afterAll(() => api.close());

describe('MCP contract', () => {
  it('docs/mcp-tools.json is what GET /mcp/tools.json serves (run npm run mcp:contract after changing a tool)', async () => {
    const served = await api.call('GET', '/mcp/tools.json');
    expect(served.status).toBe(200);
    expect(served.json.tools.length).toBeGreaterThanOrEqual(22);
    expect(JSON.parse(await readFile(CONTRACT_PATH, 'utf8'))).toEqual(served.json);
    expect(contractText()).toBe(await readFile(CONTRACT_PATH, 'utf8'));
  });

  for (const kind of ['v2', 'v1'] as ClientKind[]) {
    it(`tools/list over the ${kind} client matches the contract, schemas included`, async () => {
      const contract = (await api.call('GET', '/mcp/tools.json')).json;
      const client = await connectMcp(kind, api.baseUrl);
      try {
        const listed = await client.listTools();
        expect(
          listed.map((t) => ({
            name: t.name,
            title: t.title,
            description: t.description,
            inputSchema: t.inputSchema,
            outputSchema: t.outputSchema,
            annotations: t.annotations,
          })),
        ).toEqual(contract.tools);
        for (const tool of listed) {
          expect(tool.description?.length, tool.name).toBeGreaterThan(60);
          expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
        }
      } finally {
        await client.close();
      }
    });
  }
});
