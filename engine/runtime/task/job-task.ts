// Tasks a worker handles: service, send, script, user, receive and
// business-rule (with a task definition). Each waits on one job whose type
// the compiler fixed per SPEC.md's table; completing the job completes the
// task.
import type { ElementBehavior } from '../behavior/element-behavior.ts';
import { createJob } from '../behavior/job.ts';

export const jobTask: ElementBehavior = {
  activate(exec, ei, node) {
    createJob(exec, ei, node);
  },
};
