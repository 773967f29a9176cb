// Evaluating a deployed decision on request (SPEC.md: decision input →
// decision result). Compiling DMN is the expensive part, so compiled models
// are kept by checksum: identical XML compiles to the same model whatever
// account deployed it, and a new version has a new checksum.
import { BoundedCache, type CompiledDmn, compileDmn, type EvaluatedDecision, evaluateDecision, type Variables } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';

export interface DecisionOutcome {
  decisionId: string;
  version: number;
  result: unknown;
  evaluated: EvaluatedDecision[];
}

const compiled = new BoundedCache<CompiledDmn | string>(256);

export async function evaluateDeployedDecision(ctx: ApiContext, account: string, decisionId: string, variables: Variables): Promise<DecisionOutcome> {
  const stored = await ctx.engine.store.decisions.latestDecision(account, decisionId);
  if (stored === null) throw new ApiError('NOT_FOUND', `No decision '${decisionId}' is deployed; deploy its DMN model with POST /api/v1/models first.`);
  const model = compiled.getOrCreate(stored.checksum, () => {
    const result = compileDmn(stored.xml);
    return result.ok ? result.model : result.problems.map((p) => p.message).join(' ');
  });
  // Deploy compiled it, so this only happens if the compiler changed since.
  if (typeof model === 'string') throw new ApiError('CONFLICT', `Decision '${decisionId}' version ${stored.version} no longer compiles: ${model}`);
  const outcome = evaluateDecision(model, decisionId, variables);
  if (!outcome.ok) {
    throw new ApiError('INVALID_INPUT', outcome.error, {
      decisionId: outcome.decisionId,
      errors: [{ field: 'body.variables', message: outcome.error }],
    });
  }
  return { decisionId, version: stored.version, result: outcome.result, evaluated: outcome.evaluated.map((e) => ({ ...e })) };
}
