// Message intermediate catch events wait as a job of type
// `event:message:<elementId>` (SPEC.md Events: no route correlates messages;
// a worker completes the job when the message is in).
import type { ElementBehavior } from '../behavior/element-behavior.ts';
import { createJob } from '../behavior/job.ts';

export const intermediateCatchEvent: ElementBehavior = {
  activate(exec, ei, node) {
    createJob(exec, ei, node);
  },
};
