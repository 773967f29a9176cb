// The signed-in person's dashboard (docs/account.md): the account's
// definitions, instances by state, open incidents, jobs waiting per type,
// usage over the last day and 30 days, and the balance, in one answer. The
// figures are the store's bounded, index-backed reads
// (account-summary-repository.ts); counts that reach their cap are named in
// `saturated`. Reached with a sign-in session only.
import { z } from 'zod';
import { creditsServiceOf } from '../credits/index.ts';
import { identityServiceOf } from '../identity/index.ts';
import { route } from '../openapi/route.ts';
import type { RegisterRoutes } from './index.ts';

const count = z.number().int();
const usageSchema = z.object({
  starts: count.describe('Process instances started in the window (instances created, whatever started them).'),
  taskCompletions: count.describe('Human tasks completed in the window, by any way (REST, GraphQL, the job routes).'),
});

const dashboardSchema = z.object({
  account: z.string(),
  email: z.string().nullable(),
  balance: count.describe('Credits left.'),
  credits: z.object({
    enabled: z.boolean().describe('False when the server charges nothing (ORCA_CREDITS=off).'),
  }),
  definitions: count.describe('Processes deployed (each counted once, whatever its versions).'),
  instances: z
    .object({ active: count, incident: count, completed: count, terminated: count })
    .describe('Instances by state, as the engine counts them at each commit.'),
  openIncidents: count,
  jobsWaiting: z.array(z.object({ type: z.string(), waiting: count })).describe('Jobs ready to be activated, per job type (in name order).'),
  usage: z.object({ day: usageSchema, month: usageSchema }).describe('The last 24 hours and the last 30 days.'),
  saturated: z.array(z.string()).describe('Figures that reached their cap and mean "at least" (e.g. usage.month.starts).'),
});

export const register: RegisterRoutes = async (app, ctx) => {
  const identity = identityServiceOf(ctx.identity);
  const credits = creditsServiceOf(ctx.credits);
  if (!identity || !credits || !ctx.signIn) return;

  route(
    app,
    {
      method: 'GET',
      path: '/api/dashboard',
      summary: "The signed-in person's account at a glance: definitions, instances by state, incidents, waiting jobs, usage, balance.",
      tags: ['account'],
      auth: 'session',
      response: { status: 200, schema: dashboardSchema },
      errors: [401],
    },
    async (_input, request) => {
      const account = request.account;
      const [email, balance, summary] = await Promise.all([
        identity.emailOf(account),
        credits.balance(account),
        // Usage over the last day and month, as of the injected clock where there is one.
        ctx.engine.store.accountSummary.summary(account, ctx.now?.() ?? new Date()),
      ]);
      return { account, email, balance, credits: { enabled: credits.enabled }, ...summary };
    },
  );
};
