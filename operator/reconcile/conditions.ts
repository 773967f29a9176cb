// The status conditions a reconcile ends with (kstatus: Ready, Reconciling,
// Stalled, each with observedGeneration, reason and message), so `helm
// --wait`, Argo CD and kubectl wait read one convention. A condition keeps
// its lastTransitionTime unless its status flips.
import type { Condition } from './kinds.ts';

/** How a reconcile ended. */
export type Outcome =
  /** Deployed and verified in Orca. */
  | { state: 'ready'; reason: string; message: string }
  /** Still working or waiting on something that may come right by itself (Orca down, a 5xx): retried with backoff. */
  | { state: 'progressing'; reason: string; message: string }
  /** Cannot progress until someone changes something (the spec, the model, a Secret). */
  | { state: 'stalled'; reason: string; message: string };

const TYPES = ['Ready', 'Reconciling', 'Stalled'] as const;

/** The three conditions for `outcome`, carrying over lastTransitionTime from `previous` where the status is unchanged. */
export function conditionsFor(outcome: Outcome, generation: number | undefined, previous: Condition[] | undefined, now: string): Condition[] {
  const wanted: Record<(typeof TYPES)[number], Condition['status']> = {
    Ready: outcome.state === 'ready' ? 'True' : 'False',
    Reconciling: outcome.state === 'progressing' ? 'True' : 'False',
    Stalled: outcome.state === 'stalled' ? 'True' : 'False',
  };
  return TYPES.map((type) => {
    const before = previous?.find((c) => c.type === type);
    const status = wanted[type];
    // A False condition says nothing of its own; it repeats the outcome so every line of `kubectl describe` explains it.
    return {
      type,
      status,
      observedGeneration: generation,
      lastTransitionTime: before !== undefined && before.status === status ? before.lastTransitionTime : now,
      reason: outcome.reason,
      message: outcome.message,
    };
  });
}
