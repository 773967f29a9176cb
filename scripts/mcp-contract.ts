// Writes the MCP tool contract (api/mcp/contract.ts) to docs/mcp-tools.json:
// `npm run mcp:contract` after changing a tool. test/api/mcp-contract.test.ts
// fails while the committed file differs from what the server serves.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolContract } from '../api/mcp/contract.ts';

export const CONTRACT_PATH = new URL('../docs/mcp-tools.json', import.meta.url);

export function contractText(): string {
  return `${JSON.stringify(toolContract(), null, 2)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeFile(CONTRACT_PATH, contractText());
  process.stdout.write(`wrote ${CONTRACT_PATH.pathname} (${toolContract().tools.length} tools)\n`);
}
