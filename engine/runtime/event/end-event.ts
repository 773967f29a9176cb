// End events. None: the token ends. Terminate: every other token of its
// scope (the process, or the subprocess it sits in) ends too, so the scope
// completes at once. Error: thrown to the nearest catch (incident if none).
// Escalation: thrown, then the token ends. Message: a job of its
// zeebe:taskDefinition type, like a send task (as Zeebe runs it); the token
// ends when the job is completed. Signal (extension): broadcast, then the
// token ends.
import type { ElementProcessor } from '../element-processor.ts';
import { createJob } from '../behavior/job.ts';
import { throwSignal } from '../behavior/signals.ts';
import { throwError, throwEscalation } from '../behavior/throw.ts';

export const endEventProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    const definition = node.eventDefinition;
    switch (definition?.kind) {
      case 'terminate':
        exec.terminateChildren(ei.scopeKey);
        // The end event's own token is the last one alive in the scope.
        exec.adjustTokens(ei.scopeKey, 1);
        break;
      case 'error':
        // Caught: the catch took the token over. Otherwise the token waits (parent's answer, or an incident).
        throwError(exec, ei, definition.errorCode ?? '', definition.errorName);
        return;
      case 'escalation':
        if (throwEscalation(exec, ei, definition.escalationCode ?? '') === 'interrupted') return;
        break;
      case 'signal':
        throwSignal(exec, ei, node);
        break;
      case 'message':
        if (node.job !== undefined) {
          createJob(exec, ei, node);
          return;
        }
        break;
    }
    exec.completeElement(ei, node, []);
  },
};
