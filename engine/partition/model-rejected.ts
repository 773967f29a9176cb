// The error a deploy answers with when its document does not compile: every
// problem, each with its element id, in the message and as `problems` (the
// API lists them as the 400's fields).
import type { ModelProblem } from '../model/types.ts';
import { EngineError } from './engine-error.ts';

export class ModelRejected extends EngineError {
  constructor(readonly problems: ModelProblem[]) {
    super('INVALID_ARGUMENT', `The model is invalid: ${problems.map((p) => (p.elementId ? `[${p.elementId}] ` : '') + p.message).join(' ')}`);
  }
}
