// Tasks a worker handles: service, send, script, user, receive and
// business-rule (with a task definition). Each waits on one job whose type
// the compiler fixed per SPEC.md's table; completing the job completes the
// task.
import type { ElementProcessor } from '../element-processor.ts';
import { createJob } from '../behavior/job.ts';

export const jobTaskProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    createJob(exec, ei, node);
  },
};
