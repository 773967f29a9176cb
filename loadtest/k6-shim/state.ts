// What the k6 stand-in modules record while loadtest/k6-smoke.ts runs the
// k6 scripts in Node: every request with its outcome (failed as k6 counts
// `http_req_failed`: outside the expected statuses), every check, every
// custom metric sample, and which VU is running. One shared object, because
// the scripts' modules and the smoke runner must see the same one.

export interface RecordedRequest {
  method: string;
  url: string;
  status: number;
  failed: boolean;
  tags: Record<string, string>;
  durationMs: number;
}

export interface ShimState {
  requests: RecordedRequest[];
  checks: { name: string; passed: boolean }[];
  metrics: Map<string, number[]>;
  vu: number;
  iteration: number;
  /** k6's sleep() is capped at this many milliseconds: a smoke run has no time for 1–5 s pauses. */
  maxSleepMs: number;
  slept: number;
}

export const state: ShimState = { requests: [], checks: [], metrics: new Map(), vu: 1, iteration: 0, maxSleepMs: 10, slept: 0 };

export function resetState(): void {
  state.requests = [];
  state.checks = [];
  state.metrics = new Map();
  state.slept = 0;
}
