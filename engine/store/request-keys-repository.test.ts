import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import type { Database } from './database.ts';
import { rows } from './db.ts';
import { definitionsRepository } from './definitions-repository.ts';
import { requestKeysRepository } from './request-keys-repository.ts';
import { processXml, start } from '../runtime/testing.ts';

const testDb = createTestDatabase();
let database: Database;
let repo: ReturnType<typeof requestKeysRepository>;

beforeAll(async () => {
  database = await testDb.open();
  repo = requestKeysRepository(database.db);
});
afterAll(() => testDb.cleanup());

describe('once', () => {
  it('runs the work the first time and answers the stored result and fingerprint afterwards', async () => {
    let runs = 0;
    const work = async () => ({ run: ++runs });
    expect(await repo.once('acct-a', 'k1', 'fp-1', work)).toEqual({ replayed: false, result: { run: 1 } });
    expect(await repo.once('acct-a', 'k1', 'fp-2', work)).toEqual({ replayed: true, fingerprint: 'fp-1', result: { run: 1 } });
    // Another account's key of the same name is its own.
    expect(await repo.once('acct-b', 'k1', 'fp-1', work)).toEqual({ replayed: false, result: { run: 2 } });
    expect(runs).toBe(2);
  });

  it('runs the work once when requests under one key arrive together, and commits it with the key', async () => {
    const xml = processXml('keyed-deploy', start());
    const deploy = () =>
      repo.once('acct-a', 'deploy-1', 'fp', (tx) =>
        definitionsRepository(database.db).deployProcesses('acct-a', [{ bpmnProcessId: 'keyed-deploy', resourceName: 'a.bpmn', xml }], tx),
      );
    const outcomes = await Promise.all([deploy(), deploy(), deploy()]);
    expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
    for (const outcome of outcomes) expect(outcome.result).toEqual([expect.objectContaining({ bpmnProcessId: 'keyed-deploy', version: 1, isNew: true })]);
  });

  it('gives keyed deploys under different keys, arriving together, versions with no gap and no model twice in a row', async () => {
    const xmls = [1, 2, 3].map((i) => processXml('keyed-race', start(`s${i}`)));
    const definitions = definitionsRepository(database.db);
    const outcomes = await Promise.all(
      [...xmls, ...xmls].map((xml, i) =>
        repo.once('acct-a', `race-${i}`, 'fp', (tx) =>
          definitions.deployProcesses('acct-a', [{ bpmnProcessId: 'keyed-race', resourceName: 'r.bpmn', xml }], tx),
        ),
      ),
    );
    const deployed = outcomes.map((o) => o.result[0]);
    // A deploy adds a version unless its model is the latest one, so how many
    // the six make depends on their order: at least one per model, each new
    // one numbered next, and no version the same model as the one before it.
    const added = deployed.filter((d) => d.isNew).length;
    expect(added).toBeGreaterThanOrEqual(3);
    const versions = await definitions.listProcessVersions('acct-a', 'keyed-race');
    expect(versions.map((v) => v.version).sort((a, b) => a - b)).toEqual(Array.from({ length: added }, (_, i) => i + 1));
    const byVersion = new Map(deployed.map((d) => [d.version, d.checksum]));
    for (let v = 2; v <= added; v++) expect(byVersion.get(v)).not.toBe(byVersion.get(v - 1));
  });

  it('keeps neither the key nor the work when the work fails', async () => {
    const failing = repo.once('acct-a', 'k-fail', 'fp', async (tx) => {
      await definitionsRepository(database.db).deployProcesses(
        'acct-a',
        [{ bpmnProcessId: 'rolled-back', resourceName: 'r.bpmn', xml: processXml('rolled-back', start()) }],
        tx,
      );
      throw new Error('the work failed after writing');
    });
    await expect(failing).rejects.toThrow('the work failed after writing');
    expect(await definitionsRepository(database.db).latestProcess('acct-a', 'rolled-back')).toBeNull();
    expect(await repo.once('acct-a', 'k-fail', 'fp', async () => 'second try')).toEqual({ replayed: false, result: 'second try' });
  });
});

describe('prune', () => {
  it('forgets results older than the horizon only', async () => {
    await repo.once('acct-p', 'old', 'fp', async () => 1);
    await repo.once('acct-p', 'new', 'fp', async () => 2);
    await rows(database.db, sql`update request_keys set created_at = now() - interval '2 days' where account = 'acct-p' and request_key = 'old'`);
    expect(await repo.prune(new Date(Date.now() - 86_400_000))).toBe(1);
    expect(await repo.once('acct-p', 'old', 'fp-again', async () => 3)).toEqual({ replayed: false, result: 3 });
    expect(await repo.once('acct-p', 'new', 'fp-again', async () => 4)).toEqual({ replayed: true, fingerprint: 'fp', result: 2 });
  });
});
