// The machine-readable contract of the MCP tools: each tool's name,
// description, annotations and input and output JSON Schemas, converted from
// the same zod schemas the same way the SDK converts them for tools/list.
// Served at GET /mcp/tools.json and written to docs/mcp-tools.json
// (npm run mcp:contract); test/api/mcp-contract.test.ts holds all three equal.
import type { z } from 'zod';
import { inputSchemaOf, type ToolSpec } from './tool.ts';
import { tools } from './tools/index.ts';

/** draft 2020-12, the SDK's conversion target. */
const TARGET = 'draft-2020-12';

function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Record<string, unknown> {
  return { type: 'object', ...schema['~standard'].jsonSchema[io]({ target: TARGET }) };
}

export interface ToolContract {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations?: ToolSpec['annotations'];
}

let contract: { tools: ToolContract[] } | undefined;

export function toolContract(): { tools: ToolContract[] } {
  contract ??= {
    tools: tools.map((spec) => ({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: jsonSchemaOf(inputSchemaOf(spec), 'input'),
      outputSchema: jsonSchemaOf(spec.output, 'output'),
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
    })),
  };
  return contract;
}
