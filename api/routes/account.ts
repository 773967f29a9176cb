// The caller's own account: address, balance and the credit ledger (every
// charge, refund and grant, newest first). Read-only; credits move only
// through the charged routes.
import { z } from 'zod';
import { creditsServiceOf } from '../credits/index.ts';
import { identityServiceOf } from '../identity/index.ts';
import { route } from '../openapi/route.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['account'];

const accountSchema = z.object({
  account: z.string(),
  email: z.string().nullable(),
  balance: z.number().int().describe('Credits left.'),
});

const ledgerEntrySchema = z.object({
  id: z.string(),
  amount: z.number().int().describe('Negative for a charge, positive for a refund or grant.'),
  reason: z.string(),
  reference: z.string().nullable(),
  balanceAfter: z.number().int(),
  createdAt: z.string(),
});

const ledgerQuery = z.object({ ...pageQuery });

export const register: RegisterRoutes = async (app, ctx) => {
  const identity = identityServiceOf(ctx.identity);
  const credits = creditsServiceOf(ctx.credits);
  // Built with test doubles: no account routes.
  if (!identity || !credits) return;

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/account',
      summary: 'The account the credential belongs to: its address and credit balance.',
      tags: TAGS,
      auth: 'apiKey',
      response: { status: 200, schema: accountSchema },
      errors: [401],
    },
    async (_input, request) => {
      const [email, balance] = await Promise.all([identity.emailOf(request.account), credits.balance(request.account)]);
      return { account: request.account, email, balance };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/account/ledger',
      summary: 'Credit movements of the account, newest first.',
      tags: TAGS,
      auth: 'apiKey',
      query: ledgerQuery,
      response: { status: 200, schema: pageSchema(ledgerEntrySchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const page = await readPage(() => credits.ledger(request.account, { limit: query.limit, cursor: query.cursor }));
      return { items: page.items.map((entry) => ({ ...entry, createdAt: entry.createdAt.toISOString() })), nextCursor: page.nextCursor };
    },
  );
};
