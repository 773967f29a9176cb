// DMN decisions: each decision of a deployed DMN model gets a version per
// (account, decision id), with the same rules as processes
// (definitions-repository.ts): identical XML keeps its version, deploys of
// one decision serialise on its `decisions` row. The whole DMN document is
// stored with each decision, since a decision may require others in it.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { checksumOf, isChecksum } from './checksum.ts';
import { clampLimit, decodeCursor, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { decisions, decisionVersions } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface DeployDecisionInput {
  decisionId: string;
  decisionName?: string | null;
  resourceName: string;
  xml: string;
  /** sha256 of the XML, lower-case hex; computed when absent. */
  checksum?: string;
}

export interface DeployDecisionResult {
  decisionId: string;
  version: number;
  checksum: string;
  isNew: boolean;
}

export interface DecisionVersionSummary {
  decisionId: string;
  decisionName: string | null;
  version: number;
  resourceName: string;
  checksum: string;
  deployedAt: Date;
}

export interface DecisionVersion extends DecisionVersionSummary {
  xml: string;
}

export interface DecisionSummary extends DecisionVersionSummary {
  latestVersion: number;
}

const summaryColumns = {
  decisionId: decisionVersions.decisionId,
  decisionName: decisionVersions.decisionName,
  version: decisionVersions.version,
  resourceName: decisionVersions.resourceName,
  checksum: decisionVersions.checksum,
  deployedAt: decisionVersions.deployedAt,
};

const latestJoin = and(
  eq(decisionVersions.account, decisions.account),
  eq(decisionVersions.decisionId, decisions.decisionId),
  eq(decisionVersions.version, decisions.latestVersion),
);

export function decisionsRepository(db: Db) {
  /** Deploys the decisions of one DMN resource atomically; results in input order. */
  async function deployDecisions(account: string, inputs: DeployDecisionInput[]): Promise<DeployDecisionResult[]> {
    assertAccount(account);
    const prepared = inputs.map((input) => {
      const checksum = input.checksum ?? checksumOf(input.xml);
      if (!isChecksum(checksum)) throw new TypeError(`checksum of ${input.decisionId} is not lower-case sha256 hex`);
      if (!input.decisionId) throw new TypeError('decisionId is required');
      return { ...input, checksum };
    });
    const order = prepared.map((_, i) => i).sort((a, b) => (prepared[a].decisionId < prepared[b].decisionId ? -1 : 1));
    return db.transaction(async (tx) => {
      const results: DeployDecisionResult[] = new Array(prepared.length);
      for (const i of order) results[i] = await deployOne(tx, account, prepared[i]);
      return results;
    });
  }

  async function deployDecision(account: string, input: DeployDecisionInput): Promise<DeployDecisionResult> {
    const [result] = await deployDecisions(account, [input]);
    return result;
  }

  async function latestDecision(account: string, decisionId: string): Promise<DecisionVersion | null> {
    assertAccount(account);
    const [row] = await db
      .select({ ...summaryColumns, xml: decisionVersions.xml })
      .from(decisions)
      .innerJoin(decisionVersions, latestJoin)
      .where(and(eq(decisions.account, account), eq(decisions.decisionId, decisionId)));
    return row ?? null;
  }

  async function getDecisionVersion(account: string, decisionId: string, version: number): Promise<DecisionVersion | null> {
    assertAccount(account);
    if (!Number.isSafeInteger(version)) return null;
    const [row] = await db
      .select({ ...summaryColumns, xml: decisionVersions.xml })
      .from(decisionVersions)
      .where(
        and(
          eq(decisionVersions.account, account),
          eq(decisionVersions.decisionId, decisionId),
          eq(decisionVersions.version, version),
        ),
      );
    return row ?? null;
  }

  async function listDecisions(account: string, page: PageRequest = {}): Promise<Page<DecisionSummary>> {
    assertAccount(account);
    const limit = clampLimit(page.limit);
    const after = page.cursor ? decodeCursor(page.cursor) : null;
    const fetched = await db
      .select({ ...summaryColumns, latestVersion: decisions.latestVersion })
      .from(decisions)
      .innerJoin(decisionVersions, latestJoin)
      .where(and(eq(decisions.account, account), after === null ? undefined : gt(decisions.decisionId, after)))
      .orderBy(asc(decisions.decisionId))
      .limit(limit + 1);
    return toPage(fetched, limit, (r) => r.decisionId, (r) => r);
  }

  return guarded({ deployDecisions, deployDecision, latestDecision, getDecisionVersion, listDecisions });
}

async function deployOne(tx: Db, account: string, input: DeployDecisionInput & { checksum: string }): Promise<DeployDecisionResult> {
  const { decisionId, checksum } = input;
  const [head] = await tx
    .insert(decisions)
    .values({ account, decisionId, latestVersion: 0 })
    .onConflictDoUpdate({
      target: [decisions.account, decisions.decisionId],
      set: { latestVersion: sql`${decisions.latestVersion}` },
    })
    .returning({ latestVersion: decisions.latestVersion });
  const [existing] = await tx
    .select({ version: decisionVersions.version })
    .from(decisionVersions)
    .where(
      and(eq(decisionVersions.account, account), eq(decisionVersions.decisionId, decisionId), eq(decisionVersions.checksum, checksum)),
    );
  if (existing) return { decisionId, version: existing.version, checksum, isNew: false };
  const version = head.latestVersion + 1;
  await tx
    .update(decisions)
    .set({ latestVersion: version, updatedAt: sql`now()` })
    .where(and(eq(decisions.account, account), eq(decisions.decisionId, decisionId)));
  await tx.insert(decisionVersions).values({
    account,
    decisionId,
    decisionName: input.decisionName ?? null,
    version,
    resourceName: input.resourceName,
    xml: input.xml,
    checksum,
  });
  return { decisionId, version, checksum, isNew: true };
}
