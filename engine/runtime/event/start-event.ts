// Start events: a none start (process, embedded subprocess) or the start
// that triggered an event subprocess or a timer-started instance. By the
// time the token is here the event has happened, so it passes on. The timer
// of an event subprocess start is held by its scope, which it enters.
import { triggerEventSubProcess } from '../behavior/event-subprocess.ts';
import type { ElementProcessor } from '../element-processor.ts';

export const startEventProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
  timerTriggered(exec, node, timer) {
    triggerEventSubProcess(exec, timer.ownerKey, node);
  },
};
