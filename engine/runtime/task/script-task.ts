// Script task. As SPEC.md says, it waits as a `script:<name or id>` job
// that a worker handles. With the inline-scripts deploy option (extension,
// stored with the version as ProcessModel.inlineScripts) a task with a
// zeebe:script expression is evaluated here instead, as Zeebe does: the
// FEEL result goes to `resultVariable` (with output mappings it stays local
// for them to pick from) and the task completes; a failing expression is an
// incident naming the element.
import type { ElementProcessor } from '../element-processor.ts';
import { evaluateSource, readScope } from '../behavior/expression.ts';
import { raiseIncident } from '../behavior/incident.ts';
import { createJob } from '../behavior/job.ts';
import { setLocalVariable, setPropagatedVariable } from '../behavior/variables.ts';

export const scriptTaskProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    const script = node.script;
    if (script === undefined || !exec.ctx.model.inlineScripts) {
      createJob(exec, ei, node);
      return;
    }
    const result = evaluateSource(exec, ei, script.expression);
    if (!result.ok) {
      raiseIncident(exec, ei, 'EXTRACT_VALUE_ERROR', `The script of '${node.id}' failed: ${result.error}`);
      return;
    }
    if (script.resultVariable !== undefined) {
      const value = result.value === undefined ? null : result.value;
      if (node.outputs.length > 0) setLocalVariable(exec.instance, ei.key, script.resultVariable, value);
      else setPropagatedVariable(exec.instance, readScope(exec, ei), script.resultVariable, value);
    }
    exec.completeElement(ei, node);
  },
};
