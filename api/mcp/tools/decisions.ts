// Decisions: evaluating a deployed DMN decision on request, through the
// function the REST route calls (services/decisions.ts).
import { z } from 'zod';
import { evaluationSchema } from '../../routes/decisions.ts';
import { evaluateDeployedDecision } from '../../services/decisions.ts';
import { idSchema } from '../../services/ids.ts';
import { variablesSchema } from '../../services/variables.ts';
import { defineTool } from '../tool.ts';
import { READ_ONLY } from './args.ts';

export const decisionTools = [
  defineTool({
    name: 'orca.evaluate_decision',
    title: 'Evaluate a decision',
    description:
      'Evaluates the latest version of a deployed DMN decision (orca.deploy_decision) with `variables` as its input and returns the result and ' +
      'the rules that matched. A failing evaluation is INVALID_INPUT with the reason. Free.',
    session: true,
    input: z.object({ decisionId: idSchema, variables: variablesSchema.optional() }),
    output: evaluationSchema,
    annotations: READ_ONLY,
    run: (args, { ctx, session }) => evaluateDeployedDecision(ctx, session.account, args.decisionId, args.variables ?? {}),
  }),
];
