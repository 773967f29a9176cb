// Process instances: start one (1 credit, charged and refunded as over
// REST), read one, list them with the REST filters.
import { z } from 'zod';
import { parseVariableFilter } from '../../../engine/index.ts';
import { instanceDetailSchema, instanceSummarySchema, startedSchema } from '../../routes/process-instances.ts';
import { idempotencyOf, IDEMPOTENCY_KEY_PATTERN, keyedCommand, MAX_IDEMPOTENCY_KEY_LENGTH, scopedKey } from '../../services/idempotency.ts';
import { idSchema } from '../../services/ids.ts';
import { INSTANCE_STATES, listInstancePage } from '../../services/instance-list.ts';
import { getInstanceDetail } from '../../services/instances.ts';
import { keySchema } from '../../services/keys.ts';
import { pageSchema } from '../../services/pages.ts';
import { startChargedInstance } from '../../services/start-instance.ts';
import { variablesSchema } from '../../services/variables.ts';
import { defineTool } from '../tool.ts';
import { pageArgs, READ_ONLY, WRITES } from './args.ts';

const instant = (what: string) =>
  z.iso.datetime({ offset: true, message: 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T09:00:00Z' }).optional().describe(what);

export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .regex(new RegExp(IDEMPOTENCY_KEY_PATTERN), 'must hold printable ASCII characters only')
  .describe('Optional: a key of yours for this call. Retrying with the same key and arguments answers the first result instead of acting twice.');

export const instanceTools = [
  defineTool({
    name: 'orca.start_instance',
    title: 'Start a process instance',
    description:
      'Starts an instance of the latest deployed version of a process with the given variables and returns its processInstanceKey. ' +
      'Costs 1 credit (CREDITS_EXHAUSTED, and nothing starts, without one); refunded when the start is refused. ' +
      'Pass idempotencyKey to make a retry safe after a timeout.',
    session: true,
    input: z.object({
      bpmnProcessId: idSchema.describe('The id of a deployed process (see orca.list_process_definitions).'),
      variables: variablesSchema.optional(),
      idempotencyKey: idempotencyKeySchema.optional(),
    }),
    output: startedSchema,
    annotations: { ...WRITES, idempotentHint: false },
    run: (args, { ctx, session }) => {
      const body = { bpmnProcessId: args.bpmnProcessId, variables: args.variables };
      // Fingerprinted as the REST start is: one key means one start, whichever interface sent it.
      const idempotency =
        args.idempotencyKey === undefined
          ? undefined
          : idempotencyOf(args.idempotencyKey, 'POST', '/api/v1/process-instances', { params: undefined, query: undefined, body });
      return startChargedInstance(ctx, session.account, args.bpmnProcessId, args.variables ?? {}, keyedCommand(idempotency, scopedKey.start));
    },
  }),
  defineTool({
    name: 'orca.get_instance',
    title: 'Read a process instance',
    description:
      'One process instance: state (ACTIVE, COMPLETED, TERMINATED, INCIDENT), root variables, the elements it waits in, its jobs and incidents. ' +
      'Use it to follow an instance you started. Free.',
    session: true,
    input: z.object({ processInstanceKey: keySchema.describe('The key orca.start_instance returned.') }),
    output: instanceDetailSchema,
    annotations: READ_ONLY,
    run: (args, { ctx, session }) => getInstanceDetail(ctx, session.account, args.processInstanceKey),
  }),
  defineTool({
    name: 'orca.list_instances',
    title: 'List process instances',
    description:
      'Lists process instances, newest first, filtered by state, by a root variable (`variable`: "<name>:<value>", e.g. "orderId:A-17", how to ' +
      'find an instance by your own identifier), by process and version, by start or end time ranges, or by parent instance. Free.',
    session: true,
    input: z
      .object({
        state: z.enum(INSTANCE_STATES).optional(),
        variable: z
          .string()
          .max(10_000)
          .refine((text) => parseVariableFilter(text) !== null, 'must be <name>:<value>, with a non-empty name')
          .optional()
          .describe('<name>:<value>: instances whose root variable <name> equals <value> (a JSON value, or text).'),
        bpmnProcessId: idSchema.optional(),
        version: z.number().int().min(1).max(2_147_483_647).optional().describe('A version of bpmnProcessId (which it requires).'),
        startedAfter: instant('Started at or after this instant (RFC 3339).'),
        startedBefore: instant('Started before this instant (RFC 3339).'),
        endedAfter: instant('Ended at or after this instant (RFC 3339); leaves running instances out.'),
        endedBefore: instant('Ended before this instant (RFC 3339); leaves running instances out.'),
        parentProcessInstanceKey: keySchema.optional().describe('Instances started by a call activity of this instance.'),
        ...pageArgs,
      })
      .refine((args) => args.version === undefined || args.bpmnProcessId !== undefined, {
        path: ['version'],
        message: 'needs bpmnProcessId: versions are numbered per process',
      }),
    output: pageSchema(instanceSummarySchema),
    annotations: READ_ONLY,
    run: (args, { ctx, session }) => listInstancePage(ctx, session.account, args),
  }),
];
