// Message and signal start events of a deployed process version
// (extension): the message names that start a new instance when published,
// and the signal names that do when broadcast. A name written
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
const signalCache = new WeakMap<ProcessModel, MessageStart[]>();

export function messageStartsOf(process: ProcessModel): MessageStart[] {
  let starts = cache.get(process);
  if (starts !== undefined) return starts;
  starts = [];
  for (const id of process.startEvents) {
    const definition = process.elements[id].eventDefinition;
    if (definition?.kind !== 'message' || definition.messageName === undefined) continue;
    const expr = definition.messageName;
    const text = nameText(expr.kind === 'literal' ? expr.value : evaluateFeel(expr.source, {}));
    if (text !== undefined) starts.push({ elementId: id, name: text });
  }
  cache.set(process, starts);
  return starts;
}

/** Signal start events (extension, docs/signals.md): the signal names that start a new instance when broadcast; a name after '=' is FEEL. */
export function signalStartsOf(process: ProcessModel): MessageStart[] {
  let starts = signalCache.get(process);
  if (starts !== undefined) return starts;
  starts = [];
  for (const id of process.startEvents) {
    const definition = process.elements[id].eventDefinition;
    if (definition?.kind !== 'signal' || definition.signalName === undefined) continue;
    const raw = definition.signalName.trim();
    const text = nameText(raw.startsWith('=') ? evaluateFeel(raw.slice(1), {}) : raw);
    if (text !== undefined) starts.push({ elementId: id, name: text });
  }
  signalCache.set(process, starts);
  return starts;
}

function nameText(name: string | ReturnType<typeof evaluateFeel>): string | undefined {
  const text = typeof name === 'string' ? name : name.ok && typeof name.value === 'string' ? name.value : undefined;
  return text === undefined || text === '' ? undefined : text;
}
