// Case instances (CMMN) as every interface sees them: a start charged like a
// process start (1 credit, refunded when refused or unanswered, not charged
// again when an Idempotency-Key replays it), the views of a case and its
// plan items, and an action on a plan item checked against the stored case
// first, so a wrong target or state is a clear 404 or 409 that changes
// nothing. The leader checks again when it applies the command.
import type { CaseAction, CaseInstanceRecord, CommandOptions, Variables } from '../../engine/index.ts';
import { EngineError } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';
import { keyedTimeout } from './idempotency.ts';

export interface StartedCaseView {
  caseInstanceKey: string;
  caseDefinitionId: string;
  version: number;
  state: string;
}

/** Starts the latest version of `caseDefinitionId`; OUT_OF_CREDITS having done nothing when the account has no credit left. */
export async function startChargedCase(
  ctx: ApiContext,
  account: string,
  caseDefinitionId: string,
  variables: Variables,
  keyed?: CommandOptions & { commandKey: string; fingerprint: string },
): Promise<StartedCaseView> {
  const answered = keyed !== undefined && (await ctx.engine.hasCommandResult(account, keyed.commandKey));
  const undo = answered ? undefined : await ctx.credits.charge(account, 1, 'case-instance-start', caseDefinitionId);
  let replayed = false;
  try {
    const started = await ctx.engine.startCase(account, caseDefinitionId, variables, keyed && { ...keyed, onReplay: () => (replayed = true) });
    if (replayed) await undo?.();
    return { caseInstanceKey: started.caseInstanceKey, caseDefinitionId: started.caseDefinitionId, version: started.version, state: started.state };
  } catch (err) {
    await undo?.();
    if (err instanceof EngineError && err.code === 'TIMEOUT') {
      const what = `The start may still run; it was not charged${undo === undefined ? '' : ' (the credit was refunded)'}.`;
      if (keyed !== undefined) throw keyedTimeout(what);
      throw new ApiError(
        'UNAVAILABLE',
        `No committed answer from the engine in time. ${what} Look for the case (GET /api/v1/case-instances) before starting again.`,
        {
          retryAfterSeconds: 1,
        },
      );
    }
    throw err;
  }
}

export function caseSummary(row: CaseInstanceRecord) {
  return {
    caseInstanceKey: row.key,
    caseDefinitionId: row.caseDefinitionId,
    version: row.version,
    state: row.state,
    variables: row.variables,
    parentKey: row.parentKey,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
  };
}

export function caseDetail(row: CaseInstanceRecord) {
  const doc = row.document;
  return {
    ...caseSummary(row),
    planItems: Object.values(doc.planItems).map((pi) => ({
      planItemKey: pi.key,
      planItemId: pi.id,
      definitionId: pi.definitionId,
      type: pi.type,
      state: pi.state,
      stageKey: pi.stageKey ?? null,
      jobKey: pi.jobKey ?? null,
      childInstanceKey: pi.childInstanceKey ?? null,
      incidentKey: pi.incidentKey ?? null,
      createdAt: new Date(pi.createdAt).toISOString(),
      endedAt: pi.endedAt === undefined ? null : new Date(pi.endedAt).toISOString(),
    })),
    incidents: Object.values(doc.incidents).map((i) => ({
      key: i.key,
      type: i.type,
      message: i.message,
      elementId: i.elementId,
      elementInstanceKey: i.elementInstanceKey,
      createdAt: new Date(i.createdAt).toISOString(),
    })),
  };
}

/** What a client may ask of a plan item instance, in Flowable's words, and the case runtime's command and the states it acts in. */
export const PLAN_ITEM_ACTIONS = {
  start: { command: 'startPlanItem', from: ['ENABLED'] },
  trigger: { command: 'occur', from: ['AVAILABLE'] },
  complete: { command: 'completePlanItem', from: ['ACTIVE'] },
  terminate: { command: 'terminatePlanItem', from: ['AVAILABLE', 'ENABLED', 'DISABLED', 'ACTIVE'] },
  disable: { command: 'disablePlanItem', from: ['ENABLED'] },
  enable: { command: 'reenablePlanItem', from: ['DISABLED'] },
} as const satisfies Record<string, { command: CaseAction; from: string[] }>;

export type PlanItemAction = keyof typeof PLAN_ITEM_ACTIONS;

async function liveCase(ctx: ApiContext, account: string, key: string, what: string): Promise<CaseInstanceRecord> {
  const row = await ctx.engine.store.caseInstances.getCaseInstance(account, key);
  if (row === null) throw new ApiError('NOT_FOUND', `Case instance '${key}' not found.`);
  if (row.state !== 'ACTIVE') {
    throw new ApiError('CONFLICT', `Case instance '${key}' is ${row.state}; ${what}`, { state: row.state });
  }
  return row;
}

type Keyed = CommandOptions & { commandKey: string; fingerprint: string };

/**
 * A keyed command (Idempotency-Key) answered before is answered again from
 * its result, without the checks: the case has moved on since.
 */
async function replayed(ctx: ApiContext, account: string, caseInstanceKey: string, keyed: Keyed | undefined): Promise<boolean> {
  return keyed !== undefined && (await ctx.engine.hasCaseCommandResult(account, caseInstanceKey, keyed.commandKey));
}

/** Acts on a plan item instance of an ACTIVE case; 404 for an unknown one, 409 when it is not in a state the action applies to. */
export async function actOnPlanItem(
  ctx: ApiContext,
  account: string,
  caseInstanceKey: string,
  planItemKey: string,
  action: PlanItemAction,
  variables: Variables | undefined,
  keyed?: Keyed,
): Promise<void> {
  const { command } = PLAN_ITEM_ACTIONS[action];
  const sent = action === 'complete' ? variables : undefined;
  if (await replayed(ctx, account, caseInstanceKey, keyed)) return ctx.engine.caseCommand(account, caseInstanceKey, command, planItemKey, sent, keyed);
  const row = await liveCase(ctx, account, caseInstanceKey, 'only an ACTIVE case takes plan item actions (a case in INCIDENT can only be cancelled).');
  const pi = row.document.planItems[planItemKey];
  if (pi === undefined) {
    throw new ApiError('NOT_FOUND', `Plan item instance '${planItemKey}' not found in case instance '${caseInstanceKey}'.`);
  }
  const { from } = PLAN_ITEM_ACTIONS[action];
  if (action === 'trigger' && pi.type !== 'userEventListener') {
    throw new ApiError('CONFLICT', `Plan item '${pi.id}' is a ${pi.type}; only a user event listener can be triggered.`, { type: pi.type });
  }
  if (action === 'complete' && pi.jobKey !== undefined) {
    throw new ApiError('CONFLICT', `Plan item '${pi.id}' waits on its task '${pi.jobKey}'; complete the task (POST /api/v1/tasks/${pi.jobKey}/complete).`, {
      jobKey: pi.jobKey,
    });
  }
  if (!(from as readonly string[]).includes(pi.state)) {
    throw new ApiError('CONFLICT', `Plan item '${pi.id}' (${planItemKey}) is ${pi.state}; '${action}' applies only when it is ${from.join(' or ')}.`, {
      state: pi.state,
    });
  }
  await ctx.engine.caseCommand(account, caseInstanceKey, command, planItemKey, sent, keyed);
}

/** Cancels an ACTIVE case or one in INCIDENT: everything inside terminates, its child processes are cancelled. */
export async function cancelCase(ctx: ApiContext, account: string, caseInstanceKey: string, keyed?: Keyed): Promise<void> {
  if (await replayed(ctx, account, caseInstanceKey, keyed)) return ctx.engine.caseCommand(account, caseInstanceKey, 'cancel', undefined, undefined, keyed);
  const row = await ctx.engine.store.caseInstances.getCaseInstance(account, caseInstanceKey);
  if (row === null) throw new ApiError('NOT_FOUND', `Case instance '${caseInstanceKey}' not found.`);
  if (row.state === 'COMPLETED' || row.state === 'TERMINATED') {
    throw new ApiError('CONFLICT', `Case instance '${caseInstanceKey}' is ${row.state}; only a live case can be cancelled.`, { state: row.state });
  }
  await ctx.engine.caseCommand(account, caseInstanceKey, 'cancel', undefined, undefined, keyed);
}
