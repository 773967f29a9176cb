// Stand-in for the `k6` module (check, sleep, fail, group) so the k6 scripts
// run in Node for loadtest/k6-smoke.ts. sleep() blocks like k6's does, but
// for at most state.maxSleepMs.
import { state } from './state.ts';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function check<T>(value: T, sets: Record<string, (v: T) => boolean>): boolean {
  let all = true;
  for (const [name, predicate] of Object.entries(sets)) {
    let passed: boolean;
    try {
      passed = Boolean(predicate(value));
    } catch {
      passed = false;
    }
    state.checks.push({ name, passed });
    all &&= passed;
  }
  return all;
}

export function sleep(seconds: number): void {
  state.slept++;
  Atomics.wait(sleeper, 0, 0, Math.min(seconds * 1000, state.maxSleepMs));
}

export function fail(message?: string): never {
  throw new Error(message ?? 'fail() called');
}

export function group<T>(_name: string, fn: () => T): T {
  return fn();
}

export default { check, sleep, fail, group };
