// `orca credits grant EMAIL AMOUNT [--reason R]`: an operator adds credits to
// the account of an address over the server's POST /api/admin/credits, with
// the server's operator token (ORCA_ADMIN_TOKEN, or --admin-token) instead
// of an API key. Never repeated on a lost answer: a repeat would grant twice,
// so the wallet tells whether it landed.
import { OrcaClient } from '../../client/index.ts';
import { printJson } from '../output.ts';
import { integer, parse, positionals, UsageError } from './args.ts';
import { connection, DEFAULT_URL } from './connection.ts';
import { guarded } from './exit-codes.ts';

export function runCredits(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'grant') return grant(rest);
  return guarded('credits', argv, () => {
    throw new UsageError(sub === undefined ? 'say grant' : `unknown credits command '${sub}': say grant`);
  });
}

function grant(argv: string[]): Promise<number> {
  return guarded('credits grant', argv, async () => {
    const parsed = parse({
      args: argv,
      allowPositionals: true,
      options: { url: { type: 'string' }, 'admin-token': { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' } },
    });
    const { values } = parsed;
    const [email, amountText] = positionals(parsed.positionals, ['EMAIL', 'AMOUNT']);
    const amount = integer(amountText, 'AMOUNT', 1, 1_000_000_000)!;
    const adminToken = (values['admin-token'] ?? process.env.ORCA_ADMIN_TOKEN ?? '').trim();
    if (adminToken === '') throw new UsageError("no operator token: set ORCA_ADMIN_TOKEN (or pass --admin-token) to the server's ORCA_ADMIN_TOKEN");
    // The URL is checked as every remote command checks it; no API key is needed here.
    const { url } = connection({ url: values.url, 'api-key': 'unused' });
    const client = new OrcaClient({ url: url || DEFAULT_URL });
    try {
      const granted = await client.grantCredits({ email, amount, reason: values.reason }, { adminToken });
      if (values.json) printJson(granted);
      else process.stdout.write(`granted ${granted.amount} credits to ${email} (account ${granted.account}); balance now ${granted.balance}\n`);
    } finally {
      await client.close();
    }
  });
}
