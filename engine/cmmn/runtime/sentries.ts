// Sentries (CMMN 1.1, Sentry and Criterion): a standard event of one plan item instance
// reaches the criteria listening for it. Each instance keeps which on-parts
// of its sentries have happened; a sentry is satisfied when all have and its
// if-part holds at that moment (evaluated then, not later). Several entry
// criteria are alternatives: the first satisfied one fires, and an item no
// longer AVAILABLE ignores the rest. Any exit criterion terminates a live
// item and everything inside it. Criteria with an if-part only are evaluated
// when the item is created and whenever the case file changes.
import type { Sentry, StandardEvent } from '../types.ts';
import type { CaseExecution } from './case-execution.ts';
import { evaluateCondition } from './conditions.ts';
import type { PlanItemInstance } from './types.ts';

const LIVE_STATES = new Set(['AVAILABLE', 'ENABLED', 'DISABLED', 'ACTIVE']);

export function processEvent(exec: CaseExecution, source: PlanItemInstance, event: StandardEvent): void {
  const listeners = exec.model.listeners[source.id];
  if (listeners === undefined) return;
  for (const listenerId of listeners) {
    for (const target of Object.values(exec.instance.planItems)) {
      if (exec.stopped) return;
      if (target.id !== listenerId || !LIVE_STATES.has(target.state) || !sameScope(exec, source, target)) continue;
      const item = exec.itemOf(target);
      // Exit first: an event that both ends and would start an item ends it.
      if (fires(exec, target, item.exit, source.id, event)) {
        exec.terminate(target, 'exit');
        continue;
      }
      if (target.state === 'AVAILABLE' && fires(exec, target, item.entry, source.id, event)) enterByCriterion(exec, target);
    }
  }
}

/**
 * A plan item inside a repeated stage listens only to items of its own stage
 * instance; items in different stages of the model see each other's events.
 */
function sameScope(exec: CaseExecution, source: PlanItemInstance, target: PlanItemInstance): boolean {
  if (source.key === target.stageKey || target.key === source.stageKey) return true;
  const sourceParent = exec.model.planItems[source.id].parentId;
  const targetParent = exec.model.planItems[target.id].parentId;
  return sourceParent !== targetParent || source.stageKey === target.stageKey;
}

/** Latches the on-parts `event` satisfies; true when one of `sentries` is now satisfied. */
function fires(exec: CaseExecution, target: PlanItemInstance, sentries: string[], sourceId: string, event: StandardEvent): boolean {
  for (const sentryId of sentries) {
    const sentry = exec.model.sentries[sentryId];
    let touched = false;
    sentry.onParts.forEach((part, index) => {
      if (part.sourceId !== sourceId || part.event !== event) return;
      const seen = ((target.onParts ??= {})[sentryId] ??= []);
      if (!seen.includes(index)) seen.push(index);
      touched = true;
    });
    if (!touched) continue;
    if ((target.onParts?.[sentryId]?.length ?? 0) < sentry.onParts.length) continue;
    if (ifPartHolds(exec, target, sentry)) return true;
    if (exec.stopped) return false;
  }
  return false;
}

function ifPartHolds(exec: CaseExecution, target: PlanItemInstance, sentry: Sentry): boolean {
  if (sentry.ifPart === undefined) return true;
  const result = evaluateCondition(sentry.ifPart, exec.instance.variables, exec);
  if (result.ok) return result.value;
  exec.incident(target, 'CONDITION_ERROR', `The if-part of sentry '${sentry.id}' (a criterion of '${target.id}') could not be evaluated: ${result.error}`);
  return false;
}

/** Criteria made of an if-part alone: satisfied whenever the condition holds. */
export function checkConditions(exec: CaseExecution, pi: PlanItemInstance): void {
  const item = exec.itemOf(pi);
  for (const sentryId of item.exit) {
    const sentry = exec.model.sentries[sentryId];
    if (sentry.onParts.length === 0 && ifPartHolds(exec, pi, sentry)) {
      exec.terminate(pi, 'exit');
      return;
    }
    if (exec.stopped) return;
  }
  if (pi.state !== 'AVAILABLE') return;
  for (const sentryId of item.entry) {
    const sentry = exec.model.sentries[sentryId];
    if (sentry.onParts.length === 0 && ifPartHolds(exec, pi, sentry)) {
      enterByCriterion(exec, pi);
      return;
    }
    if (exec.stopped) return;
  }
}

/** An entry criterion fired: a repeatable item leaves a fresh AVAILABLE instance behind (CMMN 1.1, RepetitionRule), then enters. */
function enterByCriterion(exec: CaseExecution, pi: PlanItemInstance): void {
  const item = exec.itemOf(pi);
  if (item.repetition !== false) {
    const repeat =
      typeof item.repetition === 'boolean' ? { ok: true as const, value: true } : evaluateCondition(item.repetition.condition, exec.instance.variables, exec);
    if (!repeat.ok) return exec.incident(pi, 'CONDITION_ERROR', `The repetition rule of '${pi.id}' could not be evaluated: ${repeat.error}`);
    // Not checked for if-part-only criteria at once: the same condition would fire it again in a loop until the case file changes.
    if (repeat.value) exec.create(item, pi.stageKey, undefined, false);
  }
  exec.enter(pi, item);
}
