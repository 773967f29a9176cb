// Business-rule task. With a task definition it is a job like any worker
// task; with zeebe:calledDecision it evaluates the latest deployed decision
// inline and writes the result to `resultVariable` (a failure is an
// incident naming the decision and the reason).
import { inFeelScope } from '../../feel/index.ts';
import type { ElementProcessor } from '../element-processor.ts';
import { describe, evaluateValue, readScope } from '../behavior/expression.ts';
import { raiseIncident } from '../behavior/incident.ts';
import { createJob } from '../behavior/job.ts';
import { setLocalVariable, setPropagatedVariable, visibleVariables } from '../behavior/variables.ts';

export const businessRuleTaskProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    const called = node.calledDecision;
    if (called === undefined) {
      createJob(exec, ei, node);
      return;
    }
    const decisionId = evaluateValue(exec, ei, called.decisionId);
    if (!decisionId.ok || typeof decisionId.value !== 'string' || decisionId.value === '') {
      const why = decisionId.ok ? `it gave ${describe(decisionId.value)}, not a decision id` : decisionId.error;
      raiseIncident(exec, ei, 'EXTRACT_VALUE_ERROR', `The called decision of '${node.id}' could not be determined: ${why}.`);
      return;
    }
    const evaluate = exec.ctx.evaluateDecision;
    const id = decisionId.value;
    const variables = visibleVariables(exec.instance, readScope(exec, ei));
    // The decision's FEEL draws on this command's time allowance, like the command's own expressions.
    const result = evaluate === undefined ? { ok: false as const, error: 'no decisions are deployed' } : inFeelScope(exec, () => evaluate(id, variables));
    if (!result.ok) {
      raiseIncident(exec, ei, 'DECISION_EVALUATION_ERROR', `Decision '${decisionId.value}' called by '${node.id}' failed: ${result.error}`);
      return;
    }
    exec.record('DECISION_EVALUATED', { elementId: node.id, elementInstanceKey: ei.key, detail: { decisionId: decisionId.value } });
    // As with job variables: with output mappings the result stays local for them to pick from.
    if (node.outputs.length > 0) setLocalVariable(exec.instance, ei.key, called.resultVariable, result.result);
    else setPropagatedVariable(exec.instance, readScope(exec, ei), called.resultVariable, result.result);
    exec.completeElement(ei, node);
  },
};
