// Message start events of a deployed process version (extension): the
// message names that start a new instance when published. A name written
// as FEEL is evaluated at deploy time without variables, as Camunda 8 does
// (there is no instance yet); one that gives no string starts nothing.
// Shared by the in-memory engine and the partition leaders.
import { evaluateFeel } from '../feel/index.ts';
import type { ProcessModel } from '../model/types.ts';

export interface MessageStart {
  elementId: string;
  name: string;
}

const cache = new WeakMap<ProcessModel, MessageStart[]>();

export function messageStartsOf(process: ProcessModel): MessageStart[] {
  let starts = cache.get(process);
  if (starts !== undefined) return starts;
  starts = [];
  for (const id of process.startEvents) {
    const definition = process.elements[id].eventDefinition;
    if (definition?.kind !== 'message' || definition.messageName === undefined) continue;
    const expr = definition.messageName;
    const name = expr.kind === 'literal' ? expr.value : evaluateFeel(expr.source, {});
    const text = typeof name === 'string' ? name : name.ok && typeof name.value === 'string' ? name.value : undefined;
    if (text !== undefined && text !== '') starts.push({ elementId: id, name: text });
  }
  cache.set(process, starts);
  return starts;
}
