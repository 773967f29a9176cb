// Call activity: starts a child instance of the called process (its latest
// deployed version, resolved by whoever applies the startChild effect) and
// waits for it, taking its variables back when it completes. The child is
// an instance of its own key; terminating the call activity cancels it.
// Chains of calls are limited in depth, so a process that calls itself ends
// in an incident instead of running forever.
import type { ElementProcessor } from '../element-processor.ts';
import { describe, evaluateValue, readScope } from '../behavior/expression.ts';
import { raiseIncident } from '../behavior/incident.ts';
import { mergeResultVariables, setLocalVariable, visibleVariables } from '../behavior/variables.ts';

/** Camunda 8's default for the deepest chain of called process instances. */
export const DEFAULT_MAX_CALL_DEPTH = 1000;

export const callActivityProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    const called = node.calledElement!;
    const processId = evaluateValue(exec, ei, called.processId);
    if (!processId.ok || typeof processId.value !== 'string' || processId.value === '') {
      const why = processId.ok ? `it gave ${describe(processId.value)}, not a process id` : processId.error;
      raiseIncident(exec, ei, 'EXTRACT_VALUE_ERROR', `The called process of '${node.id}' could not be determined: ${why}.`);
      return;
    }
    if (exec.ctx.hasProcess !== undefined && !exec.ctx.hasProcess(processId.value)) {
      raiseIncident(exec, ei, 'CALLED_ELEMENT_ERROR', `'${node.id}' calls process '${processId.value}', but no process with that id is deployed.`);
      return;
    }
    const depth = (exec.instance.depth ?? 0) + 1;
    const maxDepth = exec.ctx.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
    if (depth >= maxDepth) {
      raiseIncident(
        exec,
        ei,
        'CALLED_ELEMENT_ERROR',
        `'${node.id}' cannot call process '${processId.value}': that would nest ${depth + 1} process instances through call activities, ` +
          `more than the ${maxDepth} allowed (does a process call itself without end?).`,
      );
      return;
    }
    // Without propagateAllParentVariables the child sees only the call activity's input mappings.
    const variables = called.propagateAllParentVariables
      ? { ...visibleVariables(exec.instance, readScope(exec, ei)) }
      : { ...(exec.instance.variables[ei.key] ?? {}) };
    ei.childInstanceKey = exec.nextKey();
    exec.persist(ei);
    exec.effect({
      type: 'startChild',
      childInstanceKey: ei.childInstanceKey,
      bpmnProcessId: processId.value,
      variables,
      parentElementInstanceKey: ei.key,
      depth,
      ...(exec.instance.signalGeneration === undefined ? {} : { signalGeneration: exec.instance.signalGeneration }),
    });
  },
  calledInstanceCompleted(exec, ei, node, variables) {
    ei.childInstanceKey = undefined;
    const hasOutputs = node.outputs.length > 0;
    // Without propagateAllChildVariables only the output mappings see the child's variables.
    if (node.calledElement!.propagateAllChildVariables) mergeResultVariables(exec.instance, ei, hasOutputs, variables);
    else if (hasOutputs) for (const name of Object.keys(variables)) setLocalVariable(exec.instance, ei.key, name, variables[name]);
    exec.completeElement(ei, node);
  },
  terminate(exec, ei) {
    if (ei.childInstanceKey !== undefined) exec.effect({ type: 'sendCommand', instanceKey: ei.childInstanceKey, command: { type: 'cancel' } });
  },
};
