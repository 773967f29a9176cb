// Event-based gateway: waits on every event after it at once — timers, and
// message catches as jobs (`event:message:<elementId>`), and signal catches
// as signal subscriptions (extension). The first to happen
// wins; the others are withdrawn (their jobs cancelled, timers disarmed).
// The branch jobs hang off the gateway's instance, so ending the gateway
// withdraws them too.
import type { FlowNode } from '../../model/types.ts';
import type { ElementProcessor } from '../element-processor.ts';
import { createJob, withdrawJobsOf } from '../behavior/job.ts';
import { subscribeSignalEvent } from '../behavior/signals.ts';
import { armTimer, cancelTimersOf } from '../behavior/timers.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance } from '../types.ts';

/** The branch of `eventId` happened (a job completed, a timer fired, a signal came): the others are withdrawn. */
export function win(exec: Execution, ei: ElementInstance, node: FlowNode, eventId: string): void {
  withdrawJobsOf(exec, ei.key);
  cancelTimersOf(exec, ei.key);
  const flow = node.outgoing.find((id) => exec.model.flows[id].targetRef === eventId)!;
  exec.completeElement(ei, node, [flow], { triggered: true });
}

export const eventBasedGatewayProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    exec.persist(ei);
    for (const flowId of node.outgoing) {
      const event = exec.model.elements[exec.model.flows[flowId].targetRef];
      const kind = event.eventDefinition?.kind;
      if (kind === 'signal') {
        subscribeSignalEvent(exec, event, ei.key, ei);
        continue;
      }
      const ok = kind === 'timer' ? armTimer(exec, event, ei.key, ei) : createJob(exec, ei, event);
      if (!ok) return;
    }
  },
  jobCompleted(exec, ei, node, job) {
    win(exec, ei, node, job.elementId);
  },
  timerFired(exec, ei, node, timer) {
    win(exec, ei, node, timer.elementId);
  },
  terminate(exec, ei) {
    withdrawJobsOf(exec, ei.key);
  },
};
