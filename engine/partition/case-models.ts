// Compiled case models for the leaders (CMMN): each deployed case version
// compiled once per process, and each account's latest case versions,
// refreshed at most every `refreshMs` like the process view in
// model-cache.ts, so a deploy on another pod is seen promptly.
import { compileCmmn, type CaseModel } from '../cmmn/index.ts';
import type { Store } from '../store/index.ts';

interface LatestCases {
  loadedAt: number;
  /** caseDefinitionId → latest version */
  latest: Map<string, number>;
}

export class CaseModels {
  private readonly versions = new Map<string, CaseModel>();
  private readonly accounts = new Map<string, LatestCases>();

  constructor(
    private readonly store: Store,
    private readonly refreshMs = 2_000,
  ) {}

  async model(account: string, caseDefinitionId: string, version: number): Promise<CaseModel | undefined> {
    const key = `${account}\u0000${caseDefinitionId}\u0000${version}`;
    const cached = this.versions.get(key);
    if (cached !== undefined) return cached;
    const stored = await this.store.cases.getCaseVersion(account, caseDefinitionId, version);
    if (stored === null) return undefined;
    const compiled = compileCmmn(stored.xml);
    if (!compiled.ok) throw new Error(`stored case ${caseDefinitionId} v${version} no longer compiles: ${compiled.problems[0]?.message}`);
    const model = compiled.model.cases.find((c) => c.id === caseDefinitionId);
    if (model !== undefined) this.versions.set(key, model);
    return model;
  }

  /** The account's latest case versions; `force` reads them again (a start of a case deployed a moment ago). */
  async latest(account: string, force = false): Promise<Map<string, number>> {
    const existing = this.accounts.get(account);
    if (!force && existing !== undefined && Date.now() - existing.loadedAt < this.refreshMs) return existing.latest;
    const latest = new Map<string, number>();
    for (let cursor: string | undefined; ;) {
      const page = await this.store.cases.listCases(account, { limit: 1000, cursor });
      for (const c of page.items) latest.set(c.caseDefinitionId, c.latestVersion);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    this.accounts.set(account, { loadedAt: Date.now(), latest });
    return latest;
  }
}
