// The `deployment.created` webhook event of a deploy (issue #19), written by
// the deploy's own transaction (versioned-resources.ts) so the event exists
// exactly when the versions it reports do. A deploy that adds no version
// (the same XML again) reports nothing. The deploy's own statements ask
// whether any endpoint of the account wants the event (SUBSCRIBED_TO_DEPLOYMENTS),
// so a deploy nobody listens to costs no statement more.
import { ENQUEUE_WEBHOOK_EVENTS, webhookEventId, type WebhookEvent } from './webhook-outbox.ts';
import type { Statement, Tx } from './statement.ts';

export type DeployedKind = 'process' | 'decision' | 'case';

export interface DeployedResource {
  id: string;
  version: number;
  resourceName: string;
  isNew: boolean;
}

/**
 * The event of a deploy of `resources` (in the deploy's input order), or
 * undefined when none is new. `deploymentId` is what the deploy answer
 * names the deployment by (its first resource's id); the event id adds the
 * first new version and the instant, since a resource deleted and deployed
 * again starts over at version 1.
 */
export function deploymentEvent(account: string, kind: DeployedKind, resources: readonly DeployedResource[], at: Date): WebhookEvent | undefined {
  const first = resources.find((r) => r.isNew);
  if (first === undefined) return undefined;
  return {
    id: webhookEventId('deployment.created', `${kind}_${first.id}_v${first.version}_${at.getTime()}`),
    account,
    type: 'deployment.created',
    timestamp: at.toISOString(),
    data: {
      deploymentId: resources[0].id,
      resources: resources.filter((r) => r.isNew).map((r) => ({ kind, id: r.id, version: r.version, resourceName: r.resourceName })),
    },
  };
}

/**
 * SQL (`$1` the account) true when an enabled endpoint of the account is
 * subscribed to deployment.created: a probe of the enabled-endpoints index,
 * asked by the statements that add a version.
 */
export const SUBSCRIBED_TO_DEPLOYMENTS = `exists (select 1 from webhook_endpoints w where w.account = $1 and w.status = 'enabled' and w.events ? 'deployment.created')`;

// Named, so a pod prepares it once per connection: its one table access is
// the enabled-endpoints index by account, the plan no table size can spoil.
const ENQUEUE_DEPLOYMENT_EVENT: Statement = { name: 'webhook-enqueue-deployment', text: ENQUEUE_WEBHOOK_EVENTS.text };

/** Writes the deploy's event, if any, in the deploy's transaction: one statement on the account's enabled endpoints, nothing without any. */
export async function enqueueDeploymentEvent(tx: Tx, account: string, kind: DeployedKind, resources: readonly DeployedResource[]): Promise<void> {
  const event = deploymentEvent(account, kind, resources, new Date());
  if (event !== undefined) await tx.run(ENQUEUE_DEPLOYMENT_EVENT, [JSON.stringify([event])]);
}
