// Human tasks (the `userTask` jobs): list, claim, assign and complete them,
// through the functions REST and GraphQL share (services/tasks.ts).
// Completing costs 1 credit, as REST completion does.
import { z } from 'zod';
import { taskSchema } from '../../routes/tasks.ts';
import { idSchema } from '../../services/ids.ts';
import { keySchema } from '../../services/keys.ts';
import { pageSchema } from '../../services/pages.ts';
import { assignTask, claimTask, completeTask, listTasks } from '../../services/tasks.ts';
import { variablesSchema } from '../../services/variables.ts';
import { defineTool } from '../tool.ts';
import { pageArgs, READ_ONLY, WRITES } from './args.ts';

const taskId = keySchema.describe('The id of a task from orca.list_tasks.');

export const taskTools = [
  defineTool({
    name: 'orca.list_tasks',
    title: 'List human tasks',
    description:
      'Lists human tasks (user tasks waiting for a person or an agent), oldest first: open ones (CREATED) unless state is FAILED; by assignee, ' +
      'assigned or not, instance or process. Free.',
    session: true,
    input: z.object({
      state: z.enum(['CREATED', 'FAILED']).optional(),
      assignee: idSchema.optional(),
      assigned: z.boolean().optional().describe('true: only claimed or assigned tasks; false: only unassigned ones.'),
      processInstanceKey: keySchema.optional(),
      bpmnProcessId: idSchema.optional(),
      ...pageArgs,
    }),
    output: pageSchema(taskSchema),
    annotations: READ_ONLY,
    run: (args, { ctx, session }) => listTasks(ctx, session.account, args),
  }),
  defineTool({
    name: 'orca.claim_task',
    title: 'Claim a human task',
    description: 'Claims a task for `assignee` (default: this agent). CONFLICT when someone else holds it (orca.assign_task takes it over). Free.',
    session: true,
    input: z.object({ taskId, assignee: idSchema.optional() }),
    output: taskSchema,
    annotations: { ...WRITES, idempotentHint: true },
    run: (args, { ctx, session }) => claimTask(ctx, session.account, args.taskId, args.assignee ?? session.agentId),
  }),
  defineTool({
    name: 'orca.assign_task',
    title: 'Assign a human task',
    description: 'Gives a task to `assignee`, whoever held it; null returns it to the pool. Free.',
    session: true,
    input: z.object({ taskId, assignee: idSchema.nullable() }),
    output: taskSchema,
    annotations: { ...WRITES, idempotentHint: true },
    run: (args, { ctx, session }) => assignTask(ctx, session.account, args.taskId, args.assignee),
  }),
  defineTool({
    name: 'orca.complete_task',
    title: 'Complete a human task',
    description:
      'Completes a human task, merging `variables` into the instance, which moves on. Costs 1 credit (CREDITS_EXHAUSTED, and nothing happens, ' +
      'without one), refunded when the completion is refused.',
    session: true,
    input: z.object({ taskId, variables: variablesSchema.optional() }),
    output: z.object({ taskId: z.string(), completed: z.literal(true) }),
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => {
      await completeTask(ctx, session.account, args.taskId, args.variables, { charge: true });
      return { taskId: args.taskId, completed: true as const };
    },
  }),
];
