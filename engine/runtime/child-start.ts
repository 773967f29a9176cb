// The start command of the child instance a call activity asked for (its
// startChild effect), against the version of the called process whoever
// applies the effect resolved: shared by the in-memory engine and the
// partition leader, so both start children the same way.
import type { Command, Effect } from './types.ts';

export type StartChild = Extract<Effect, { type: 'startChild' }>;

export function childStartCommand(effect: StartChild, parentKey: string, version: number): Command {
  return {
    type: 'start',
    processInstanceKey: effect.childInstanceKey,
    variables: effect.variables,
    version,
    parent: { instanceKey: parentKey, elementInstanceKey: effect.parentElementInstanceKey },
    depth: effect.depth,
    ...(effect.signalGeneration === undefined ? {} : { signalGeneration: effect.signalGeneration }),
  };
}
