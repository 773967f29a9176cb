// The signed-in person's wallet (docs/account.md): the balance and the
// ledger, newest first with cursor paging — every charge, refund and grant
// with the balance after it and the object it paid for. Reached with a
// sign-in session only; readable whether or not the server charges.
import { z } from 'zod';
import { creditsServiceOf } from '../credits/index.ts';
import { route } from '../openapi/route.ts';
import { pageQuery, readPage } from '../services/pages.ts';
import type { RegisterRoutes } from './index.ts';

const entrySchema = z.object({
  id: z.string(),
  amount: z.number().int().describe('Negative for a charge, positive for a refund or grant.'),
  balanceAfter: z.number().int(),
  reason: z.string().describe('What moved the credits: process-instance-start, case-instance-start, task-completion, refund: …, grant: …, opening balance.'),
  reference: z.string().nullable().describe('The object it paid for (a process id, a task key), or null.'),
  createdAt: z.string(),
});

const walletSchema = z.object({
  balance: z.number().int(),
  creditsEnabled: z.boolean().describe('False when the server charges nothing (ORCA_CREDITS=off).'),
  items: z.array(entrySchema),
  nextCursor: z.string().nullable(),
});

export const register: RegisterRoutes = async (app, ctx) => {
  const credits = creditsServiceOf(ctx.credits);
  if (!credits || !ctx.signIn) return;

  route(
    app,
    {
      method: 'GET',
      path: '/api/wallet',
      summary: 'The balance and the ledger of the signed-in account, newest first.',
      tags: ['account'],
      auth: 'session',
      query: z.object({ ...pageQuery }),
      response: { status: 200, schema: walletSchema },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const [balance, page] = await Promise.all([
        credits.balance(request.account),
        readPage(() => credits.ledger(request.account, { limit: query.limit, cursor: query.cursor })),
      ]);
      return {
        balance,
        creditsEnabled: credits.enabled,
        items: page.items.map((e) => ({
          id: e.id,
          amount: e.amount,
          balanceAfter: e.balanceAfter,
          reason: e.reason,
          reference: e.reference,
          createdAt: e.createdAt.toISOString(),
        })),
        nextCursor: page.nextCursor,
      };
    },
  );
};
