// Stand-in for `k6/execution`: the VU and iteration the smoke runner set.
import { state } from './state.ts';

export default {
  get vu() {
    return { idInTest: state.vu, idInInstance: state.vu, iterationInInstance: state.iteration, iterationInScenario: state.iteration };
  },
  test: {
    abort(reason?: string): never {
      throw new Error(`test aborted: ${reason ?? ''}`);
    },
  },
};
