// Stopping a FEEL evaluation that runs too long, and the time shared by the
// evaluations of one scope (an engine command, a decision evaluated over
// REST). feelin is synchronous, and the only way Node offers to stop
// synchronous JavaScript from the outside is the watchdog of node:vm: code
// entered through `Script.runInContext` with a `timeout` is terminated when
// the timeout passes, including the functions of this realm it calls (all
// of feelin). Termination unwinds every frame up to runInContext, which
// then throws; nothing inside the evaluation gets to run a `finally`, which
// is why all bookkeeping happens out here (and why a cache an evaluation
// may have been stopped inside of is dropped afterwards). Each watched call
// starts and joins a watchdog thread (about 0.1 ms, more on a loaded
// machine: docs/feel-limits.md), so bounded.ts watches only the
// evaluations that need it.
import { createContext, Script } from 'node:vm';
import { FEEL_LIMITS } from './eval-limits.ts';

/** Thrown by runWithin when `run` was stopped at its deadline. */
export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`stopped after ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

let pending: (() => unknown) | undefined;
let watching = false;
const sandbox = createContext({ run: () => pending?.() });
const entry = new Script('run()', { filename: 'orca-feel-deadline.js' });

/** Runs `run`, stopping it after `ms` milliseconds (at least 1) with DeadlineExceeded. */
export function runWithin<T>(ms: number, run: () => T): T {
  // Already under a watchdog (an evaluation inside an evaluation): that one bounds this.
  if (watching) return run();
  const timeout = Math.max(1, Math.ceil(ms));
  pending = run;
  watching = true;
  try {
    return entry.runInContext(sandbox, { timeout }) as T;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new DeadlineExceeded(timeout);
    throw err;
  } finally {
    pending = undefined;
    watching = false;
  }
}

/** The time the feelin evaluations of one scope have taken, against what they may take together. */
export class TimeScope {
  spentMs = 0;

  constructor(readonly limitMs: number = FEEL_LIMITS.scopeMs) {}

  get remainingMs(): number {
    return this.limitMs - this.spentMs;
  }
}

const scopes = new WeakMap<object, TimeScope>();

/** The TimeScope of `key` (any object standing for the scope, e.g. an engine command's Execution). */
export function timeScopeOf(key: object): TimeScope {
  let scope = scopes.get(key);
  if (scope === undefined) {
    scope = new TimeScope();
    scopes.set(key, scope);
  }
  return scope;
}

let ambient: object | undefined;

/**
 * Runs `run` with `key` as the scope of evaluations that are not given one
 * explicitly: how an engine command lends its scope to a decision it
 * evaluates through an interface that does not carry one.
 */
export function inFeelScope<T>(key: object, run: () => T): T {
  const previous = ambient;
  ambient = key;
  try {
    return run();
  } finally {
    ambient = previous;
  }
}

/** The scope lent by inFeelScope, if any. */
export function ambientFeelScope(): object | undefined {
  return ambient;
}
