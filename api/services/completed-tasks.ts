// Completed human tasks (an extension, DESIGN §6): SPEC.md forgets a task
// once it is done, so these are read from the store's record of completions
// (`completed_tasks`, kept by the engine's batch commit), never from the
// jobs. Shaped like the open tasks, with when they were completed.
import type { CompletedTaskRecord, Page } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';
import { readPage } from './pages.ts';
import { type TaskIdentity, taskIdentity } from './tasks.ts';

/** `assignee`: who held the task when it was completed; null when nobody did. */
export interface CompletedTaskView extends TaskIdentity {
  state: 'COMPLETED';
  completedAt: string;
}

export function completedTaskView(task: CompletedTaskRecord): CompletedTaskView {
  return {
    ...taskIdentity(task),
    state: 'COMPLETED',
    completedAt: task.completedAt.toISOString(),
  };
}

export async function listCompletedTasks(
  ctx: ApiContext,
  account: string,
  filter: { assignee?: string; processInstanceKey?: string; limit?: number; cursor?: string },
): Promise<Page<CompletedTaskView>> {
  const page = await readPage(() =>
    ctx.engine.store.completedTasks.listCompletedTasks(account, {
      assignee: filter.assignee,
      instanceKey: filter.processInstanceKey,
      limit: filter.limit,
      cursor: filter.cursor,
    }),
  );
  return { items: page.items.map(completedTaskView), nextCursor: page.nextCursor };
}

export async function getCompletedTask(ctx: ApiContext, account: string, taskKey: string): Promise<CompletedTaskView> {
  const task = await ctx.engine.store.completedTasks.getCompletedTask(account, taskKey);
  if (task === null) throw new ApiError('NOT_FOUND', `No completed task '${taskKey}': it is still open, was cancelled, or never existed.`);
  return completedTaskView(task);
}
