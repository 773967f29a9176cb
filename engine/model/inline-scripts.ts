// The inline-scripts deploy option (extension): a compiled model as it runs
// when deployed with it — its processes marked (ProcessModel.inlineScripts,
// which the runtime's script task reads) and the SCRIPT_TASK_IS_JOB
// warnings of tasks with a zeebe:script expression dropped, since those now
// run as Zeebe runs them. Script tasks without an expression stay jobs.
import type { CompiledModel } from './types.ts';

export function withInlineScripts(model: CompiledModel): CompiledModel {
  const inline = new Set<string>();
  for (const p of model.processes) {
    p.inlineScripts = true;
    for (const node of Object.values(p.elements)) if (node.type === 'scriptTask' && node.script !== undefined) inline.add(node.id);
  }
  return { ...model, warnings: model.warnings.filter((w) => !(w.code === 'SCRIPT_TASK_IS_JOB' && w.elementId !== undefined && inline.has(w.elementId))) };
}
