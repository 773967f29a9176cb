// Activating elements of a running ad-hoc subprocess from outside (extension,
// DESIGN §6; Zeebe 8.8's "activate activities within an ad-hoc sub-process"):
// each element named starts a path of its own in the subprocess, with its
// variables local to that path, as a job result's activateElements do. The
// subprocess is named by its element instance key (GET the instance: its
// activeElements), under the instance that holds it, so the command goes
// to that instance's partition like any other change of it.
import { z } from 'zod';
import { EngineError, LIMITS } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { idSchema } from '../services/ids.ts';
import { keySchema } from '../services/keys.ts';
import { variablesSchema } from '../services/variables.ts';
import type { RegisterRoutes } from './index.ts';

const activationBody = z.object({
  adHocSubProcessInstanceKey: keySchema.describe("The element instance key of the running ad-hoc subprocess (the instance's activeElements)."),
  elements: z
    .array(
      z.object({
        elementId: idSchema.describe('An inner element of the ad-hoc subprocess with no incoming sequence flow.'),
        variables: variablesSchema.optional().describe('Local variables of the path this activation starts.'),
      }),
    )
    .min(1)
    .max(LIMITS.maxActivateElements)
    .describe('The elements to activate, each starting a path of its own.'),
});

/** The engine names the element at fault (`elements[1].elementId …`): a 400 on that field. */
function elementProblem(error: unknown): unknown {
  if (!(error instanceof EngineError) || error.code !== 'INVALID_ARGUMENT') return error;
  const field = /^(elements(?:\[\d+\](?:\.[A-Za-z]+)?)?)\b/.exec(error.message)?.[1] ?? 'elements';
  return new ApiError('INVALID_INPUT', error.message, { errors: [{ field: `body.${field}`, message: error.message }] });
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/process-instances/:key/ad-hoc-activities',
      summary:
        'Activate elements of a running ad-hoc subprocess of the instance: each starts a path with its variables local to it. ' +
        'An element the subprocess cannot activate is a 400 naming it; an element instance key that is no running ad-hoc subprocess of the instance, a 404. Nothing changes on either.',
      tags: ['process-instances'],
      auth: 'apiKey',
      params: z.object({ key: keySchema }),
      body: activationBody,
      response: { status: 204, description: 'Activated.' },
      errors: [400, 401, 404, 409],
      extension: true,
    },
    async ({ params, body }, request, reply) => {
      const instance = await ctx.engine.store.instances.getInstance(request.account, params.key);
      if (instance === null) throw new ApiError('NOT_FOUND', `Process instance '${params.key}' not found.`);
      if (instance.state !== 'ACTIVE') {
        throw new ApiError(
          'CONFLICT',
          `Process instance '${params.key}' is ${instance.state}; only an ACTIVE instance's ad-hoc subprocess takes activations.`,
          {
            state: instance.state,
          },
        );
      }
      try {
        await ctx.engine.activateAdHocElements(request.account, params.key, body.adHocSubProcessInstanceKey, body.elements);
      } catch (error) {
        throw elementProblem(error);
      }
      return reply.code(204).send();
    },
  );
};
