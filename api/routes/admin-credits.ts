// The operator's credit grant (docs/account.md): credits get into an
// account by POST /api/admin/credits with the server's ORCA_ADMIN_TOKEN
// (the 'adminToken' auth kind, api/plugins/auth.ts), or `orca credits
// grant`, which calls it. A grant is a ledger row like every movement.
import { z } from 'zod';
import { creditsServiceOf } from '../credits/index.ts';
import { normaliseEmail } from '../identity/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import type { RegisterRoutes } from './index.ts';

const grantBody = z.object({
  email: z.email().max(254).describe('The address of the account to credit.'),
  amount: z.number().int().min(1).max(1_000_000_000).describe('Credits to add.'),
  reason: z.string().trim().min(1).max(200).optional().describe('Why; kept on the ledger row as `grant: <reason>`.'),
});

const grantSchema = z.object({
  account: z.string(),
  ledgerEntryId: z.string(),
  amount: z.number().int(),
  balance: z.number().int().describe('The balance after the grant.'),
});

export const register: RegisterRoutes = async (app, ctx) => {
  const credits = creditsServiceOf(ctx.credits);
  if (!credits) return;

  route(
    app,
    {
      method: 'POST',
      path: '/api/admin/credits',
      summary: "Operator: adds credits to the account of an address (a ledger row). Takes the server's ORCA_ADMIN_TOKEN.",
      tags: ['admin'],
      auth: 'adminToken',
      extension: true,
      body: grantBody,
      response: { status: 201, schema: grantSchema },
      errors: [400, 401, 403, 404],
    },
    async ({ body }) => {
      const account = await ctx.engine.store.login.accountOfEmail(normaliseEmail(body.email));
      const granted = account === null ? null : await credits.grant(account, body.amount, `grant: ${body.reason ?? 'operator'}`);
      if (account === null || granted === null) {
        throw new ApiError('NOT_FOUND', 'No account has this e-mail address.', { errors: [{ field: 'body.email', message: 'no account has this address' }] });
      }
      return { account, ledgerEntryId: granted.id, amount: body.amount, balance: granted.balanceAfter };
    },
  );
};
