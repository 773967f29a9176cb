// Human tasks (the `userTask` jobs), shared by REST and GraphQL so both
// answer the same way: listing, reading, claiming, assigning and completing.
// Only the credit charge differs (SPEC.md: REST completion costs 1 credit,
// GraphQL completeTask is free), so it is the caller's choice.
import { type CommandOptions, EngineError, type Page, type TaskRecord, type Variables, visibleVariables } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';
import { keyedTimeout } from './idempotency.ts';
import { readPage } from './pages.ts';

export type TaskState = 'CREATED' | 'FAILED';

/** What every view of a human task shows, open or completed. */
export interface TaskIdentity {
  id: string;
  elementId: string;
  elementInstanceKey: string;
  processInstanceKey: string;
  bpmnProcessId: string;
  version: number;
  assignee: string | null;
  createdAt: string;
}

/** The fields of TaskIdentity, read from a stored task (open or completed). */
export function taskIdentity(task: {
  key: string;
  elementId: string;
  elementInstanceKey: string;
  instanceKey: string;
  bpmnProcessId: string;
  processVersion: number;
  assignee: string | null;
  createdAt: Date;
}): TaskIdentity {
  return {
    id: task.key,
    elementId: task.elementId,
    elementInstanceKey: task.elementInstanceKey,
    processInstanceKey: task.instanceKey,
    bpmnProcessId: task.bpmnProcessId,
    version: task.processVersion,
    assignee: task.assignee,
    createdAt: task.createdAt.toISOString(),
  };
}

export interface TaskView extends TaskIdentity {
  /** CREATED: waiting for a person; FAILED: its job ran out of retries (the instance is in INCIDENT). */
  state: TaskState;
  customHeaders: Record<string, string>;
  /** The variables the task sees (its scope chain; a case's case file); on single reads only. */
  variables?: Variables;
  /** A case's human task (CMMN): its case instance, which processInstanceKey holds as well. Absent on a process's task. */
  caseInstanceKey?: string;
}

export interface TaskListFilter {
  assignee?: string;
  assigned?: boolean;
  processInstanceKey?: string;
  bpmnProcessId?: string;
  state?: TaskState;
  limit?: number;
  cursor?: string;
}

export function taskView(task: TaskRecord, variables?: Variables): TaskView {
  return {
    ...taskIdentity(task),
    state: task.jobState === 'FAILED' ? 'FAILED' : 'CREATED',
    customHeaders: { ...task.customHeaders },
    ...(variables === undefined ? {} : { variables }),
  };
}

/** Marks the tasks that belong to a case (their instance key is a case's): one indexed read for them all. */
async function withCases(ctx: ApiContext, account: string, views: TaskView[]): Promise<TaskView[]> {
  if (views.length === 0) return views;
  const cases = await ctx.engine.store.caseInstances.caseKeys(
    account,
    views.map((v) => v.processInstanceKey),
  );
  if (cases.size === 0) return views;
  return views.map((v) => (cases.has(v.processInstanceKey) ? { ...v, caseInstanceKey: v.processInstanceKey } : v));
}

function notFound(taskKey: string): ApiError {
  return new ApiError('NOT_FOUND', `Task '${taskKey}' not found: it was completed or cancelled, or never existed.`);
}

export async function listTasks(ctx: ApiContext, account: string, filter: TaskListFilter = {}): Promise<Page<TaskView>> {
  const page = await readPage(() =>
    ctx.engine.store.tasks.listTasks(account, {
      assignee: filter.assignee,
      assigned: filter.assigned,
      instanceKey: filter.processInstanceKey,
      bpmnProcessId: filter.bpmnProcessId,
      state: filter.state === 'FAILED' ? 'failed' : 'open',
      limit: filter.limit,
      cursor: filter.cursor,
    }),
  );
  return {
    items: await withCases(
      ctx,
      account,
      page.items.map((t) => taskView(t)),
    ),
    nextCursor: page.nextCursor,
  };
}

/** The task with the variables it sees; 404 when the account has no such task. */
export async function getTask(ctx: ApiContext, account: string, taskKey: string): Promise<TaskView> {
  const task = await ctx.engine.store.tasks.getTask(account, taskKey);
  if (task === null) throw notFound(taskKey);
  const instance = await ctx.engine.store.instances.getInstance(account, task.instanceKey);
  if (instance !== null) return taskView(task, { ...visibleVariables(instance.document, task.elementInstanceKey) });
  // A case's human task sees the case file.
  const caseInstance = await ctx.engine.store.caseInstances.getCaseInstance(account, task.instanceKey);
  if (caseInstance === null) return taskView(task, {});
  return { ...taskView(task, { ...caseInstance.variables }), caseInstanceKey: caseInstance.key };
}

/** Takes the task for `assignee`; 409 when someone else holds it (claiming one's own task again is fine). */
export async function claimTask(ctx: ApiContext, account: string, taskKey: string, assignee: string): Promise<TaskView> {
  const outcome = await ctx.engine.store.tasks.claimTask(account, taskKey, assignee);
  if (outcome === null) throw notFound(taskKey);
  if (outcome.status === 'held-by-other') {
    throw new ApiError('CONFLICT', `Task '${taskKey}' is already claimed by '${outcome.task.assignee}'; assign it instead to take it over.`, {
      assignee: outcome.task.assignee,
    });
  }
  return (await withCases(ctx, account, [taskView(outcome.task)]))[0];
}

/** Gives the task to `assignee` whoever held it; null takes it back to the pool. */
export async function assignTask(ctx: ApiContext, account: string, taskKey: string, assignee: string | null): Promise<TaskView> {
  const task = await ctx.engine.store.tasks.assignTask(account, taskKey, assignee);
  if (task === null) throw notFound(taskKey);
  return (await withCases(ctx, account, [taskView(task)]))[0];
}

/**
 * Completes the task with `variables`, charging 1 credit first when asked
 * (402 and nothing happens without credits). The charge is refunded when the
 * completion is refused or unanswered: the client is told it failed, so it
 * does not pay, even though after a timeout it may still be applied. A keyed
 * completion (Idempotency-Key) that has a result already is answered from it
 * without a charge or a look at the task, which is gone by then.
 */
export async function completeTask(
  ctx: ApiContext,
  account: string,
  taskKey: string,
  variables: Variables | undefined,
  options: { charge: boolean; keyed?: CommandOptions & { commandKey: string } },
): Promise<void> {
  const { keyed } = options;
  const answered = keyed !== undefined && (await ctx.engine.hasCommandResult(account, keyed.commandKey, taskKey));
  if (!answered) {
    // Check first, so a gone task is a plain 404 without a charge and a refund.
    const task = await ctx.engine.store.tasks.getTask(account, taskKey);
    if (task === null) throw notFound(taskKey);
    if (task.jobState === 'FAILED') {
      throw new ApiError('CONFLICT', `Task '${taskKey}' failed for good and its instance is in INCIDENT; it cannot be completed (start a new instance).`);
    }
  }
  const undo = options.charge && !answered ? await ctx.credits.charge(account, 1, 'task-completion', taskKey) : undefined;
  let replayed = false;
  try {
    await ctx.engine.completeJob(account, taskKey, variables, keyed && { ...keyed, onReplay: () => (replayed = true) });
    // Answered from a twin request under the same key that committed first: that one paid.
    if (replayed) await undo?.();
  } catch (err) {
    await undo?.();
    if (err instanceof EngineError && err.code === 'NOT_FOUND') throw notFound(taskKey);
    if (err instanceof EngineError && err.code === 'TIMEOUT') {
      const charge = undo === undefined ? '' : '; it was not charged (the credit was refunded)';
      if (keyed !== undefined) throw keyedTimeout(`The completion may still be applied${charge}.`);
      throw new ApiError(
        'UNAVAILABLE',
        `No committed answer from the engine in time. The completion may still be applied${charge}. Read the task before completing it again.`,
        { retryAfterSeconds: 1 },
      );
    }
    throw err;
  }
}
