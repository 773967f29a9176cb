// Intermediate catch events. Message: waits as a job of type
// `event:message:<elementId>` (SPEC.md Events: no route correlates
// messages; a worker completes the job when the message is in). Timer: waits
// for its timer. Signal (extension, docs/signals.md): waits for a broadcast
// signal of its name, with no job. Link: entered by its throw, passes on. A catch event that
// an event-based gateway chose has already happened and passes on.
import type { ElementProcessor } from '../element-processor.ts';
import { createJob } from '../behavior/job.ts';
import { subscribeSignalEvent } from '../behavior/signals.ts';
import { armTimer } from '../behavior/timers.ts';

export const intermediateCatchEventProcessor: ElementProcessor = {
  activate(exec, ei, node, arrival) {
    if (arrival.triggered || node.eventDefinition?.kind === 'link') {
      exec.completeElement(ei, node);
      return;
    }
    if (node.eventDefinition?.kind === 'timer') {
      if (armTimer(exec, node, ei.key, ei)) exec.persist(ei);
      return;
    }
    if (node.eventDefinition?.kind === 'signal') {
      // No job: SPEC.md has no signals, so without the extension's broadcast it waits for good.
      exec.persist(ei);
      subscribeSignalEvent(exec, node, ei.key, ei);
      return;
    }
    createJob(exec, ei, node);
  },
  timerFired(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
