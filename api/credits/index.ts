// Credits: what charged routes take from an account's balance (SPEC.md
// "Limits": 1 credit to start an instance or complete a task over REST).
// A charge is one conditional UPDATE plus a ledger row in one transaction
// (engine/store ledger-repository), so concurrent charges never overdraw and
// a refused charge writes nothing. The undo a charge returns writes a refund
// row, at most once.
import type { Db, LedgerEntry, Page, PageRequest, Store } from '../../engine/store/index.ts';
import { ledgerRepository } from '../../engine/store/index.ts';
import type { Credits } from '../context.ts';
import { ApiError } from '../problem.ts';

export interface CreditsService extends Credits {
  /** Opening balance of new accounts. */
  readonly initialBalance: number;
  /** The account's balance (0 for an unknown account). */
  balance(account: string): Promise<number>;
  /** The account's movements, newest first. Throws InvalidCursorError for a cursor it did not hand out. */
  ledger(account: string, page?: PageRequest): Promise<Page<LedgerEntry>>;
}

export interface CreateCreditsOptions {
  /** The store's ledger repository; or `db`, to build one. */
  store?: Pick<Store, 'ledger'>;
  db?: Db;
  initialBalance?: number;
}

const services = new WeakSet<Credits>();

/** The full service behind a Credits made by createCredits, else undefined. */
export function creditsServiceOf(credits: Credits): CreditsService | undefined {
  return services.has(credits) ? (credits as CreditsService) : undefined;
}

export function createCredits(options: CreateCreditsOptions): CreditsService {
  const repo = options.store?.ledger ?? (options.db ? ledgerRepository(options.db) : undefined);
  if (!repo) throw new TypeError('createCredits needs a store or a db');

  const service: CreditsService = {
    initialBalance: options.initialBalance ?? 1_000,

    async charge(account, amount, reason, reference) {
      if (!Number.isSafeInteger(amount) || amount < 0) throw new TypeError(`a charge must be a whole number of credits, not ${amount}`);
      if (amount === 0) return async () => {};
      const movement = await repo.charge(account, amount, reason, reference);
      if (!movement) {
        const balance = (await repo.balance(account)) ?? 0;
        throw new ApiError('OUT_OF_CREDITS', `This needs ${amount} credit${amount === 1 ? '' : 's'} and the account has ${balance}.`, { balance, required: amount });
      }
      let undone = false;
      return async () => {
        if (undone) return;
        undone = true;
        await repo.credit(account, amount, `refund: ${reason}`, reference ?? `ledger:${movement.id}`);
      };
    },

    async balance(account) {
      return (await repo.balance(account)) ?? 0;
    },

    ledger: (account, page) => repo.list(account, page),
  };
  services.add(service);
  return service;
}
