// The agent identity tools (SPEC.md, ACN over MCP): register an agent with
// an account API key, connect a session with the agent's token, rotate the
// token. Sessions belong to Orca (rows in Postgres), not to the transport,
// so every later call names its sessionId and any pod serves it.
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { WRITES } from './args.ts';

const secret = (what: string) => z.string().min(1).max(512).describe(what);

export const agentTools = [
  defineTool({
    name: 'orca.register',
    title: 'Register an agent',
    description:
      'Creates an AI agent on the Orca account that owns `apiKey` and returns its agentId and token. Call it once per agent, not per ' +
      'conversation: the token is shown only here, so keep it secret and reuse it with orca.connect. Free; rate-limited per account and per address.',
    session: false,
    input: z.object({
      apiKey: secret('An account API key (orca_…), as the account owner received it. Not an agent token.'),
      name: z.string().min(1).max(100).describe('A name for the agent, shown in lists (printable text, at most 100 characters).'),
    }),
    output: z.object({
      agentId: z.string().describe('The new agent.'),
      token: z.string().describe('The agent token, shown once: pass it to orca.connect. Stored only as a hash.'),
    }),
    annotations: { ...WRITES, idempotentHint: false },
    run: (args, { ctx, address }) => ctx.agents.register({ apiKey: args.apiKey, name: args.name, address }),
  }),
  defineTool({
    name: 'orca.connect',
    title: 'Open a session',
    description:
      'Opens a session for the agent that owns `token` and returns its sessionId, which every other tool takes. Sessions outlive this ' +
      'connection and server restarts; connect again only after SESSION_ENDED (the token was rotated) or when starting afresh. Free; rate-limited.',
    session: false,
    input: z.object({ token: secret('The agent token from orca.register or orca.rotate_token.') }),
    output: z.object({ sessionId: z.string().describe('Pass it as sessionId to every other tool.'), agentId: z.string() }),
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, address }) => {
      const session = await ctx.agents.connect({ token: args.token, address });
      return { sessionId: session.sessionId, agentId: session.agentId };
    },
  }),
  defineTool({
    name: 'orca.rotate_token',
    title: "Rotate the agent's token",
    description:
      "Replaces the agent's token: the new one is returned once, the old one stops working at once, and every other session of the agent " +
      'ends (they get SESSION_ENDED). This session keeps working. Use it when the token may have leaked. Free.',
    session: true,
    input: z.object({}),
    output: z.object({ token: z.string().describe('The new agent token, shown once.') }),
    annotations: { ...WRITES, destructiveHint: true, idempotentHint: false },
    run: (_args, { ctx, session }) => ctx.agents.rotateToken(session.sessionId),
  }),
];
