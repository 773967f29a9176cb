// Intermediate throw events. None: a milestone, the token passes on. Link:
// the token jumps to the link catch event of the same name in the same
// scope. Escalation: thrown, then the token goes on unless an interrupting
// catch took over. Message: a job of its zeebe:taskDefinition type, like a
// send task (as Zeebe runs it). Signal (extension): broadcast, then the
// token goes on.
import type { FlowNode } from '../../model/types.ts';
import type { ElementProcessor } from '../element-processor.ts';
import { createJob } from '../behavior/job.ts';
import { throwSignal } from '../behavior/signals.ts';
import { throwEscalation } from '../behavior/throw.ts';
import type { Execution } from '../execution.ts';

const linkTargets = new WeakMap<FlowNode, string>();

function linkCatchFor(exec: Execution, node: FlowNode): string {
  let target = linkTargets.get(node);
  if (target === undefined) {
    const name = node.eventDefinition?.linkName;
    const found = Object.values(exec.model.elements).find(
      (e) => e.type === 'intermediateCatchEvent' && e.parent === node.parent && e.eventDefinition?.kind === 'link' && e.eventDefinition.linkName === name,
    );
    // The compiler guarantees a matching catch; fall back to the throw itself only to fail loudly.
    if (found === undefined) throw new Error(`no link catch event named '${name}' for '${node.id}'`);
    linkTargets.set(node, (target = found.id));
  }
  return target;
}

export const intermediateThrowEventProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    const definition = node.eventDefinition;
    if (definition?.kind === 'link') {
      exec.enter({ elementId: linkCatchFor(exec, node), scopeKey: ei.scopeKey, triggered: true });
      exec.completeElement(ei, node, []);
      return;
    }
    if (definition?.kind === 'message' && node.job !== undefined) {
      createJob(exec, ei, node);
      return;
    }
    if (definition?.kind === 'signal') throwSignal(exec, ei, node);
    if (definition?.kind === 'escalation' && throwEscalation(exec, ei, definition.escalationCode ?? '') === 'interrupted') return;
    exec.completeElement(ei, node);
  },
};
