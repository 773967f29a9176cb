// The apply contexts a leader hands the engine core: the compiled model,
// this leader's key source, the clock, and the account's decisions and
// deployed processes. Built from the model cache without waiting when it
// holds everything (the batch loop applies most commands with no await at
// all this way), else after loading what is missing.
import type { ProcessModel } from '../../model/types.ts';
import type { ApplyContext } from '../../runtime/types.ts';
import type { KeyGenerator } from '../keys.ts';
import type { AccountView, ModelCache } from '../model-cache.ts';
import type { Hot } from './hot-instances.ts';

/**
 * A command made ready to apply: its context, with what it applies to. One
 * object per command, as the context alone was: the context carries the
 * target rather than being wrapped with it.
 */
export interface Prepared extends ApplyContext {
  /** The instance the command applies to; null for a start. */
  readonly target: Hot | null;
  /** The process version the model is of. */
  readonly version: number;
}

/** A process version to apply a command against. */
interface ProcessVersion {
  bpmnProcessId: string;
  version: number;
}

export class Contexts {
  constructor(
    private readonly models: ModelCache,
    private readonly keys: KeyGenerator,
  ) {}

  /** The context from what the model cache holds now; undefined when something must be loaded first. */
  now(account: string, process: ProcessVersion, target: Hot | null): Prepared | undefined {
    const model = this.models.cachedProcess(account, process.bpmnProcessId, process.version);
    const view = model && this.models.cachedView(account);
    return view && this.of(model!, view, target, process.version);
  }

  /** The context, loading the model and the account's view when needed; undefined when the version is not deployed. */
  async load(account: string, process: ProcessVersion, target: Hot | null): Promise<Prepared | undefined> {
    const model = await this.models.process(account, process.bpmnProcessId, process.version);
    if (model === undefined) return undefined;
    return this.of(model, await this.models.view(account), target, process.version);
  }

  of(model: ProcessModel, view: AccountView, target: Hot | null, version: number): Prepared {
    return {
      model,
      nextKey: this.keys.next,
      now: Date.now,
      evaluateDecision: view.evaluate,
      hasProcess: (id) => view.latest.has(id),
      target,
      version,
    };
  }
}
