// Every MCP tool, in the order tools/list and the contract show them.
import type { ToolSpec } from '../tool.ts';
import { agentTools } from './agents.ts';
import { decisionTools } from './decisions.ts';
import { incidentTools } from './incidents.ts';
import { instanceTools } from './instances.ts';
import { jobTools } from './jobs.ts';
import { mailboxTools } from './mailbox.ts';
import { messageTools } from './messages.ts';
import { modelTools } from './models.ts';
import { taskTools } from './tasks.ts';
import { webhookTools } from './webhooks.ts';

export const tools: readonly ToolSpec[] = [
  ...agentTools,
  ...modelTools,
  ...instanceTools,
  ...jobTools,
  ...messageTools,
  ...incidentTools,
  ...taskTools,
  ...decisionTools,
  ...mailboxTools,
  ...webhookTools,
];
