// Whether a reconcile deploys, decided from what the resource says it last
// deployed: a model whose checksum differs from deployedChecksum, a
// redeploy annotation whose value differs from the last one acted on, or
// Orca no longer holding the version the status names (drift, checked only
// when nothing else calls for a deploy). Anything else, a resync included,
// deploys nothing.
import type { DefinitionStatus } from './kinds.ts';

export type DeployReason = 'NewModel' | 'ModelChanged' | 'RedeployRequested' | 'DriftRepaired';

export interface PlanInput {
  sourceChecksum: string;
  status: DefinitionStatus | undefined;
  /** The orca.dev/redeploy annotation's value (undefined when absent). */
  redeployToken: string | undefined;
}

/** The reason to deploy without asking Orca, or 'verify' when only a drift check can tell. */
export function planDeploy({ sourceChecksum, status, redeployToken }: PlanInput): DeployReason | 'verify' {
  if (status?.deployedChecksum === undefined || status.version === undefined) return 'NewModel';
  if (status.deployedChecksum !== sourceChecksum) return 'ModelChanged';
  if ((redeployToken ?? '') !== (status.redeployToken ?? '')) return 'RedeployRequested';
  return 'verify';
}
