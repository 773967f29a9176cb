// BPMN process definitions: deploying a model yields a version per (account,
// BPMN process id); identical XML (same checksum) keeps its version
// (DESIGN §4). Deploys of one process serialise on its `definitions` row, so
// concurrent deploys neither skip nor duplicate a version.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { checksumOf, isChecksum } from './checksum.ts';
import { clampLimit, decodeCursor, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { definitions, definitionVersions } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface DeployProcessInput {
  bpmnProcessId: string;
  resourceName: string;
  xml: string;
  /** sha256 of the XML, lower-case hex; computed when absent. */
  checksum?: string;
}

export interface DeployResult {
  bpmnProcessId: string;
  version: number;
  checksum: string;
  /** False when this exact XML was already deployed (the existing version is returned). */
  isNew: boolean;
}

export interface ProcessVersionSummary {
  bpmnProcessId: string;
  version: number;
  resourceName: string;
  checksum: string;
  deployedAt: Date;
}

export interface ProcessVersion extends ProcessVersionSummary {
  xml: string;
}

export interface ProcessSummary extends ProcessVersionSummary {
  latestVersion: number;
}

const summaryColumns = {
  bpmnProcessId: definitionVersions.bpmnProcessId,
  version: definitionVersions.version,
  resourceName: definitionVersions.resourceName,
  checksum: definitionVersions.checksum,
  deployedAt: definitionVersions.deployedAt,
};

export function definitionsRepository(db: Db) {
  /** Deploys several processes (one resource) atomically; results in input order. */
  async function deployProcesses(account: string, inputs: DeployProcessInput[]): Promise<DeployResult[]> {
    assertAccount(account);
    const prepared = inputs.map((input) => {
      const checksum = input.checksum ?? checksumOf(input.xml);
      if (!isChecksum(checksum)) throw new TypeError(`checksum of ${input.bpmnProcessId} is not lower-case sha256 hex`);
      if (!input.bpmnProcessId) throw new TypeError('bpmnProcessId is required');
      return { ...input, checksum };
    });
    // Lock process rows in a fixed order so two multi-process deploys cannot deadlock.
    const order = prepared.map((_, i) => i).sort((a, b) => (prepared[a].bpmnProcessId < prepared[b].bpmnProcessId ? -1 : 1));
    return db.transaction(async (tx) => {
      const results: DeployResult[] = new Array(prepared.length);
      for (const i of order) results[i] = await deployOne(tx, account, prepared[i]);
      return results;
    });
  }

  async function deployProcess(account: string, input: DeployProcessInput): Promise<DeployResult> {
    const [result] = await deployProcesses(account, [input]);
    return result;
  }

  async function latestProcess(account: string, bpmnProcessId: string): Promise<ProcessVersion | null> {
    assertAccount(account);
    const [row] = await db
      .select({ ...summaryColumns, xml: definitionVersions.xml })
      .from(definitions)
      .innerJoin(
        definitionVersions,
        and(
          eq(definitionVersions.account, definitions.account),
          eq(definitionVersions.bpmnProcessId, definitions.bpmnProcessId),
          eq(definitionVersions.version, definitions.latestVersion),
        ),
      )
      .where(and(eq(definitions.account, account), eq(definitions.bpmnProcessId, bpmnProcessId)));
    return row ?? null;
  }

  async function getProcessVersion(account: string, bpmnProcessId: string, version: number): Promise<ProcessVersion | null> {
    assertAccount(account);
    if (!Number.isSafeInteger(version)) return null;
    const [row] = await db
      .select({ ...summaryColumns, xml: definitionVersions.xml })
      .from(definitionVersions)
      .where(
        and(
          eq(definitionVersions.account, account),
          eq(definitionVersions.bpmnProcessId, bpmnProcessId),
          eq(definitionVersions.version, version),
        ),
      );
    return row ?? null;
  }

  /** Every version of one process, oldest first (the `deployments` of a process definition). */
  async function listProcessVersions(account: string, bpmnProcessId: string): Promise<ProcessVersionSummary[]> {
    assertAccount(account);
    return db
      .select(summaryColumns)
      .from(definitionVersions)
      .where(and(eq(definitionVersions.account, account), eq(definitionVersions.bpmnProcessId, bpmnProcessId)))
      .orderBy(asc(definitionVersions.version));
  }

  /** Deployed processes with their latest version, by BPMN process id. */
  async function listProcesses(account: string, page: PageRequest = {}): Promise<Page<ProcessSummary>> {
    assertAccount(account);
    const limit = clampLimit(page.limit);
    const after = page.cursor ? decodeCursor(page.cursor) : null;
    const fetched = await db
      .select({ ...summaryColumns, latestVersion: definitions.latestVersion })
      .from(definitions)
      .innerJoin(
        definitionVersions,
        and(
          eq(definitionVersions.account, definitions.account),
          eq(definitionVersions.bpmnProcessId, definitions.bpmnProcessId),
          eq(definitionVersions.version, definitions.latestVersion),
        ),
      )
      .where(and(eq(definitions.account, account), after === null ? undefined : gt(definitions.bpmnProcessId, after)))
      .orderBy(asc(definitions.bpmnProcessId))
      .limit(limit + 1);
    return toPage(fetched, limit, (r) => r.bpmnProcessId, (r) => r);
  }

  return guarded({ deployProcesses, deployProcess, latestProcess, getProcessVersion, listProcessVersions, listProcesses });
}

async function deployOne(tx: Db, account: string, input: DeployProcessInput & { checksum: string }): Promise<DeployResult> {
  const { bpmnProcessId, checksum } = input;
  // Create-or-lock the process row; from here on, deploys of this process wait for us.
  const [head] = await tx
    .insert(definitions)
    .values({ account, bpmnProcessId, latestVersion: 0 })
    .onConflictDoUpdate({
      target: [definitions.account, definitions.bpmnProcessId],
      set: { latestVersion: sql`${definitions.latestVersion}` },
    })
    .returning({ latestVersion: definitions.latestVersion });
  const [existing] = await tx
    .select({ version: definitionVersions.version })
    .from(definitionVersions)
    .where(
      and(
        eq(definitionVersions.account, account),
        eq(definitionVersions.bpmnProcessId, bpmnProcessId),
        eq(definitionVersions.checksum, checksum),
      ),
    );
  if (existing) return { bpmnProcessId, version: existing.version, checksum, isNew: false };
  const version = head.latestVersion + 1;
  await tx
    .update(definitions)
    .set({ latestVersion: version, updatedAt: sql`now()` })
    .where(and(eq(definitions.account, account), eq(definitions.bpmnProcessId, bpmnProcessId)));
  await tx.insert(definitionVersions).values({
    account,
    bpmnProcessId,
    version,
    resourceName: input.resourceName,
    xml: input.xml,
    checksum,
  });
  return { bpmnProcessId, version, checksum, isNew: true };
}
