// Credits for the instances an event starts without a request of its own to
// charge (extension): a signal an instance throws, a buffered message that
// starts an instance once the one it waited behind has ended. The API
// charges 1 credit per start before it sends a start, a publish or a
// broadcast; these starts happen inside the engine, so a leader takes the
// credits itself, from the same ledger and by the same rule (a start the
// balance does not cover does not happen). The API wires it from its
// configuration (ORCA_CREDITS); an engine made without it starts such
// instances free, as in tests and `orca simulate`.
import type { Store } from '../store/index.ts';

export type EventStartReason = 'signal-start' | 'message-start';

/** What a take granted: how many starts it paid for, and how to give back those not used. */
export interface TakenStarts {
  granted: number;
  /** Gives `count` of the granted credits back (a refund row); at most what was granted, in total. */
  refund(count: number): Promise<void>;
}

export interface EventStartCharges {
  /**
   * Takes 1 credit per start from `account`, for up to `count` starts, in
   * one statement; `reference` names what started them (the signal or
   * message key) in the ledger. Resolves with how many were granted.
   */
  take(account: string, count: number, reason: EventStartReason, reference: string): Promise<TakenStarts>;
}

/** Starts cost nothing: an engine without credits (tests, `orca simulate`, ORCA_CREDITS=off). */
export const FREE_STARTS: EventStartCharges = {
  take: async (_account, count) => ({ granted: count, refund: async () => {} }),
};

/** Charges through the ledger, as the API's credits do (api/credits). */
export function ledgerStartCharges(ledger: Store['ledger'], options: { lowThreshold?: number } = {}): EventStartCharges {
  return {
    async take(account, count, reason, reference) {
      if (count <= 0) return { granted: 0, refund: async () => {} };
      const results = await ledger.chargeMany(
        account,
        Array.from({ length: count }, () => ({ amount: 1, reason, reference })),
        options,
      );
      const granted = results.filter((r) => r.granted).length;
      let left = granted;
      return {
        granted,
        async refund(n) {
          const back = Math.min(n, left);
          if (back <= 0) return;
          left -= back;
          await ledger.credit(account, back, `refund: ${reason}`, reference);
        },
      };
    },
  };
}
