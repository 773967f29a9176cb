// Credits: what charged routes take from an account's balance (SPEC.md
// "Limits": 1 credit to start an instance or complete a task over REST).
// Charges go to the store in groups (ledger-repository chargeMany: one
// statement that locks the account row, grants in order what the balance
// covers and writes a ledger row per granted charge), so concurrent charges
// never overdraw and a refused charge writes nothing. The undo a charge
// returns writes a refund row, at most once.
//
// Group commit, per account: a charge with nothing in flight for its account
// goes out at once; charges arriving while a statement is in flight wait and
// go together in the next one. A busy account then pays one round trip and
// one turn of its row lock per group instead of per charge, and nobody waits
// longer than the statement ahead of them. Charges of one group are decided
// in arrival order, as if each had run alone. A statement that fails for
// something other than the database being away (a value the store refuses)
// wrote nothing, so its charges are sent again one by one: only the charge
// at fault fails, never the others that happened to share its statement.
//
// With charging off (ORCA_CREDITS=off) a charge takes nothing, writes
// nothing and is never refused; balances and ledgers stay readable and
// operators' grants still land.
import {
  type Charge,
  type ChargeResult,
  type Db,
  type LedgerEntry,
  ledgerRepository,
  type Page,
  type PageRequest,
  type Store,
  StoreUnavailableError,
} from '../../engine/index.ts';
import type { Credits } from '../context.ts';
import { ApiError } from '../problem.ts';

export interface CreditsService extends Credits {
  /** Opening balance of new accounts. */
  readonly initialBalance: number;
  /** Whether charged routes take credits (ORCA_CREDITS, default on). */
  readonly enabled: boolean;
  /** Adds `amount` credits to the account (an operator's grant: a ledger row); null for an unknown account. */
  grant(account: string, amount: number, reason: string): Promise<{ id: string; balanceAfter: number } | null>;
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
  /** False: charges take nothing and are never refused (ORCA_CREDITS=off). Default true. */
  enabled?: boolean;
  /** The charge that takes a balance from at least this to below it writes a credits.low webhook event. */
  lowThreshold?: number;
  /** Told of every credit granted and refunded (the metrics). */
  counted?: { charged(amount: number): void; refunded(amount: number): void };
}

const services = new WeakSet<Credits>();

/** The full service behind a Credits made by createCredits, else undefined. */
export function creditsServiceOf(credits: Credits): CreditsService | undefined {
  return services.has(credits) ? (credits as CreditsService) : undefined;
}

interface Queued {
  charge: Charge;
  resolve(result: ChargeResult): void;
  reject(error: unknown): void;
}

export function createCredits(options: CreateCreditsOptions): CreditsService {
  const repo = options.store?.ledger ?? (options.db ? ledgerRepository(options.db) : undefined);
  if (!repo) throw new TypeError('createCredits needs a store or a db');

  const enabled = options.enabled ?? true;
  const lowEvent = { lowThreshold: options.lowThreshold };

  // Accounts with a statement in flight → the charges waiting for the next one.
  const waiting = new Map<string, Queued[]>();

  const submit = (account: string, charge: Charge): Promise<ChargeResult> =>
    new Promise((resolve, reject) => {
      const queued = { charge, resolve, reject };
      const queue = waiting.get(account);
      if (queue) {
        queue.push(queued);
        return;
      }
      waiting.set(account, []);
      void flush(account, [queued]);
    });

  // Sends `group`, then whatever queued meanwhile, until nothing is left.
  const flush = async (account: string, group: Queued[]): Promise<void> => {
    for (let next = group; next.length > 0;) {
      try {
        const results = await repo.chargeMany(
          account,
          next.map((q) => q.charge),
          lowEvent,
        );
        next.forEach((q, i) => q.resolve(results[i]));
      } catch (error) {
        if (next.length === 1 || error instanceof StoreUnavailableError) for (const q of next) q.reject(error);
        else await oneByOne(account, next);
      }
      next = waiting.get(account) ?? [];
      if (next.length === 0) waiting.delete(account);
      else waiting.set(account, []);
    }
  };

  // In arrival order, so each is still decided as if it had run alone.
  const oneByOne = async (account: string, group: Queued[]): Promise<void> => {
    for (const q of group) {
      try {
        const [result] = await repo.chargeMany(account, [q.charge], lowEvent);
        q.resolve(result);
      } catch (error) {
        q.reject(error);
      }
    }
  };

  const service: CreditsService = {
    initialBalance: options.initialBalance ?? 1_000,
    enabled,

    async charge(account, amount, reason, reference) {
      if (!Number.isSafeInteger(amount) || amount < 0) throw new TypeError(`a charge must be a whole number of credits, not ${amount}`);
      if (amount === 0 || !enabled) return async () => {};
      const movement = await submit(account, { amount, reason, reference });
      if (!movement.granted) {
        const balance = movement.balance ?? 0;
        throw new ApiError('OUT_OF_CREDITS', `This needs ${amount} credit${amount === 1 ? '' : 's'} and the account has ${balance}.`, {
          balance,
          required: amount,
        });
      }
      options.counted?.charged(amount);
      let undone = false;
      return async () => {
        if (undone) return;
        undone = true;
        await repo.credit(account, amount, `refund: ${reason}`, reference ?? `ledger:${movement.id}`);
        options.counted?.refunded(amount);
      };
    },

    async balance(account) {
      return (await repo.balance(account)) ?? 0;
    },

    ledger: (account, page) => repo.list(account, page),

    grant: (account, amount, reason) => repo.credit(account, amount, reason),
  };
  services.add(service);
  return service;
}
