// Start events: a none start (process, embedded subprocess) or the start
// that triggered an event subprocess or a timer-started instance. By the
// time the token is here the event has happened, so it passes on.
import type { ElementBehavior } from '../behavior/element-behavior.ts';

export const startEvent: ElementBehavior = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
