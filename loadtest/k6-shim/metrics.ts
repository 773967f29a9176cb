// Stand-in for `k6/metrics`: each metric keeps its samples in the shared
// state under its name, for loadtest/k6-smoke.ts to read back.
import { state } from './state.ts';

class Metric {
  constructor(readonly name: string) {
    if (!state.metrics.has(name)) state.metrics.set(name, []);
  }

  add(value: number | boolean): void {
    // The smoke runner resets the state between scripts, while a metric made by a shared module lives on.
    const samples = state.metrics.get(this.name) ?? [];
    state.metrics.set(this.name, samples);
    samples.push(Number(value));
  }
}

export class Counter extends Metric {}
export class Gauge extends Metric {}
export class Rate extends Metric {}
export class Trend extends Metric {}
