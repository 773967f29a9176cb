// Compiled models for the leaders: process versions by (account, id,
// version), the latest version per process, and the decisions an account
// has deployed. Compiling is the expensive part, so each version is compiled
// once per process. The latest-version and decision views are refreshed at
// most every `refreshMs`, so a deploy on another pod is seen promptly.
import { compileDmn, evaluateDecision, type CompiledDmn } from '../dmn/index.ts';
import { compileBpmn } from '../model/index.ts';
import type { ProcessModel } from '../model/types.ts';
import type { DecisionEvaluator } from '../runtime/types.ts';
import type { Store } from '../store/index.ts';

export interface AccountView {
  loadedAt: number;
  /** bpmnProcessId → latest version */
  latest: Map<string, number>;
  decisions: Map<string, CompiledDmn>;
  evaluate: DecisionEvaluator;
}

export class ModelCache {
  private readonly versions = new Map<string, ProcessModel>();
  private readonly accounts = new Map<string, AccountView>();

  constructor(
    private readonly store: Store,
    private readonly refreshMs = 2_000,
  ) {}

  async process(account: string, bpmnProcessId: string, version: number): Promise<ProcessModel | undefined> {
    const cached = this.cachedProcess(account, bpmnProcessId, version);
    if (cached !== undefined) return cached;
    const stored = await this.store.definitions.getProcessVersion(account, bpmnProcessId, version);
    if (stored === null) return undefined;
    const compiled = compileBpmn(stored.xml);
    if (!compiled.ok) throw new Error(`stored model ${bpmnProcessId} v${version} no longer compiles: ${compiled.problems[0]?.message}`);
    for (const p of compiled.model.processes) {
      if (stored.inlineScripts) p.inlineScripts = true;
      this.versions.set(versionKey(account, p.id, version), p);
    }
    return this.cachedProcess(account, bpmnProcessId, version);
  }

  /**
   * The compiled version if it is cached, without waiting: the leader's
   * batch loop applies most commands with no await at all this way (an
   * async call per lookup cost a promise and a microtask turn each).
   */
  cachedProcess(account: string, bpmnProcessId: string, version: number): ProcessModel | undefined {
    return this.versions.get(versionKey(account, bpmnProcessId, version));
  }

  /** The account's view if it is loaded and fresh, as `view` would return it without loading. */
  cachedView(account: string): AccountView | undefined {
    const existing = this.accounts.get(account);
    return existing !== undefined && Date.now() - existing.loadedAt < this.refreshMs ? existing : undefined;
  }

  /** The account's view, refreshed when older than refreshMs (or when `force`). */
  async view(account: string, force = false): Promise<AccountView> {
    const fresh = force ? undefined : this.cachedView(account);
    if (fresh !== undefined) return fresh;
    const latest = new Map<string, number>();
    for (let cursor: string | undefined; ;) {
      const page = await this.store.definitions.listProcesses(account, { limit: 1000, cursor });
      for (const p of page.items) latest.set(p.bpmnProcessId, p.latestVersion);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const decisions = new Map<string, CompiledDmn>();
    for (let cursor: string | undefined; ;) {
      const page = await this.store.decisions.listDecisions(account, { limit: 1000, cursor });
      for (const d of page.items) {
        const stored = await this.store.decisions.getDecisionVersion(account, d.decisionId, d.latestVersion);
        const compiled = stored && compileDmn(stored.xml);
        if (compiled && compiled.ok) decisions.set(d.decisionId, compiled.model);
      }
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const evaluate: DecisionEvaluator = (decisionId, variables) => {
      const model = decisions.get(decisionId);
      if (model === undefined) return { ok: false, error: `no decision '${decisionId}' is deployed` };
      const result = evaluateDecision(model, decisionId, variables);
      return result.ok ? { ok: true, result: result.result } : { ok: false, error: result.error };
    };
    const view = { loadedAt: Date.now(), latest, decisions, evaluate };
    this.accounts.set(account, view);
    return view;
  }

  /** Forget an account's view (after a deploy on this pod). */
  invalidate(account: string): void {
    this.accounts.delete(account);
  }
}

const versionKey = (account: string, bpmnProcessId: string, version: number): string => `${account}\u0000${bpmnProcessId}\u0000${version}`;
