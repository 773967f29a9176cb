import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import { checksumOf } from './checksum.ts';
import type { Database } from './database.ts';
import { decisionsRepository } from './decisions-repository.ts';
import { definitionsRepository } from './definitions-repository.ts';

const testDb = createTestDatabase();
let database: Database;
let definitions: ReturnType<typeof definitionsRepository>;
let decisions: ReturnType<typeof decisionsRepository>;

beforeAll(async () => {
  database = await testDb.open();
  definitions = definitionsRepository(database.db);
  decisions = decisionsRepository(database.db);
});
afterAll(() => testDb.cleanup());

const bpmn = (id: string, revision: number) => `<definitions><process id="${id}"><startEvent id="s${revision}"/></process></definitions>`;

describe('process definitions', () => {
  it("versions per process: the latest version's checksum keeps it, anything else increments", async () => {
    const v1 = await definitions.deployProcess('acme', { bpmnProcessId: 'order', resourceName: 'order.bpmn', xml: bpmn('order', 1) });
    expect(v1).toMatchObject({ bpmnProcessId: 'order', version: 1, isNew: true, checksum: checksumOf(bpmn('order', 1)) });

    const again = await definitions.deployProcess('acme', { bpmnProcessId: 'order', resourceName: 'renamed.bpmn', xml: bpmn('order', 1) });
    expect(again).toMatchObject({ version: 1, isNew: false });

    const v2 = await definitions.deployProcess('acme', {
      bpmnProcessId: 'order',
      resourceName: 'order.bpmn',
      xml: bpmn('order', 2),
      checksum: checksumOf(bpmn('order', 2)),
    });
    expect(v2).toMatchObject({ version: 2, isNew: true });

    const latest = await definitions.latestProcess('acme', 'order');
    expect(latest).toMatchObject({ version: 2, xml: bpmn('order', 2), resourceName: 'order.bpmn' });
    expect(latest!.deployedAt).toBeInstanceOf(Date);
    expect((await definitions.getProcessVersion('acme', 'order', 1))!.xml).toBe(bpmn('order', 1));
    expect(await definitions.getProcessVersion('acme', 'order', 3)).toBeNull();
    expect((await definitions.listProcessVersions('acme', 'order')).map((v) => v.version)).toEqual([1, 2]);
  });

  it("rolls back: an older version's XML deployed again becomes a new latest version", async () => {
    const deploy = (revision: number) =>
      definitions.deployProcess('acme', { bpmnProcessId: 'rollback', resourceName: 'r.bpmn', xml: bpmn('rollback', revision) });
    await deploy(1);
    await deploy(2);
    expect(await deploy(1)).toMatchObject({ version: 3, isNew: true, checksum: checksumOf(bpmn('rollback', 1)) });
    expect(await definitions.latestProcess('acme', 'rollback')).toMatchObject({ version: 3, xml: bpmn('rollback', 1) });
    // Now the same XML is the latest: deploying it again keeps version 3.
    expect(await deploy(1)).toMatchObject({ version: 3, isNew: false });
    expect(await deploy(2)).toMatchObject({ version: 4, isNew: true });
    expect((await definitions.listProcessVersions('acme', 'rollback')).map((v) => [v.version, v.checksum])).toEqual([
      [1, checksumOf(bpmn('rollback', 1))],
      [2, checksumOf(bpmn('rollback', 2))],
      [3, checksumOf(bpmn('rollback', 1))],
      [4, checksumOf(bpmn('rollback', 2))],
    ]);
  });

  it('counts versions per account', async () => {
    const other = await definitions.deployProcess('globex', { bpmnProcessId: 'order', resourceName: 'o.bpmn', xml: bpmn('order', 9) });
    expect(other).toMatchObject({ version: 1, isNew: true });
    expect((await definitions.latestProcess('globex', 'order'))!.version).toBe(1);
  });

  it('deploys the processes of one resource together', async () => {
    const results = await definitions.deployProcesses('acme', [
      { bpmnProcessId: 'b-proc', resourceName: 'two.bpmn', xml: bpmn('b', 1) },
      { bpmnProcessId: 'a-proc', resourceName: 'two.bpmn', xml: bpmn('a', 1) },
    ]);
    expect(results.map((r) => [r.bpmnProcessId, r.version])).toEqual([
      ['b-proc', 1],
      ['a-proc', 1],
    ]);
  });

  it('gives concurrent deploys of new models distinct versions, and concurrent deploys of one XML one version', async () => {
    const xmls = Array.from({ length: 6 }, (_, i) => bpmn('race', i));
    const results = await Promise.all(xmls.map((xml) => definitions.deployProcess('acme', { bpmnProcessId: 'race', resourceName: 'r.bpmn', xml })));
    expect(results.every((r) => r.isNew)).toBe(true);
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);

    const same = bpmn('race', 99);
    const repeated = await Promise.all(xmls.map(() => definitions.deployProcess('acme', { bpmnProcessId: 'race', resourceName: 'r.bpmn', xml: same })));
    expect(repeated.filter((r) => r.isNew)).toHaveLength(1);
    expect(new Set(repeated.map((r) => r.version))).toEqual(new Set([7]));
  });

  it("deploys as part of a caller's drizzle transaction, and is rolled back with it", async () => {
    const inside = database.db.transaction(async (tx) => {
      const deployed = await definitionsRepository(tx).deployProcess('acme', { bpmnProcessId: 'in-tx', resourceName: 't.bpmn', xml: bpmn('in-tx', 1) });
      expect(deployed).toMatchObject({ version: 1, isNew: true });
      throw new Error('the caller changed its mind');
    });
    await expect(inside).rejects.toThrow('the caller changed its mind');
    expect(await definitions.latestProcess('acme', 'in-tx')).toBeNull();
  });

  it('lists processes with their latest version, paged by id', async () => {
    const first = await definitions.listProcesses('acme', { limit: 2 });
    expect(first.items.map((p) => [p.bpmnProcessId, p.latestVersion])).toEqual([
      ['a-proc', 1],
      ['b-proc', 1],
    ]);
    const second = await definitions.listProcesses('acme', { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((p) => [p.bpmnProcessId, p.latestVersion, p.version])).toEqual([
      ['order', 2, 2],
      ['race', 7, 7],
    ]);
    const third = await definitions.listProcesses('acme', { limit: 2, cursor: second.nextCursor });
    expect(third.items.map((p) => [p.bpmnProcessId, p.latestVersion])).toEqual([['rollback', 4]]);
    expect(third.nextCursor).toBeNull();
  });

  it('rejects a malformed checksum', async () => {
    await expect(definitions.deployProcess('acme', { bpmnProcessId: 'x', resourceName: 'x.bpmn', xml: '<x/>', checksum: 'abc' })).rejects.toThrow(/sha256/);
  });
});

describe('decisions', () => {
  it('versions decisions like processes', async () => {
    const dmn = (rev: number) => `<definitions><decision id="discount" name="Discount"/><!-- ${rev} --></definitions>`;
    expect(await decisions.deployDecision('acme', { decisionId: 'discount', decisionName: 'Discount', resourceName: 'd.dmn', xml: dmn(1) })).toMatchObject({
      version: 1,
      isNew: true,
    });
    expect(await decisions.deployDecision('acme', { decisionId: 'discount', resourceName: 'd.dmn', xml: dmn(1) })).toMatchObject({
      version: 1,
      isNew: false,
    });
    expect(await decisions.deployDecision('acme', { decisionId: 'discount', resourceName: 'd.dmn', xml: dmn(2) })).toMatchObject({
      version: 2,
      isNew: true,
    });
    expect(await decisions.latestDecision('acme', 'discount')).toMatchObject({ version: 2, xml: dmn(2) });
    expect(await decisions.getDecisionVersion('acme', 'discount', 1)).toMatchObject({ decisionName: 'Discount', xml: dmn(1) });
    expect(await decisions.latestDecision('globex', 'discount')).toBeNull();
    // Version 1's XML again: a rollback, as a new latest version.
    expect(await decisions.deployDecision('acme', { decisionId: 'discount', resourceName: 'd.dmn', xml: dmn(1) })).toMatchObject({
      version: 3,
      isNew: true,
    });
    expect(await decisions.latestDecision('acme', 'discount')).toMatchObject({ version: 3, xml: dmn(1) });
    expect(await decisions.deployDecision('acme', { decisionId: 'discount', resourceName: 'd.dmn', xml: dmn(1) })).toMatchObject({
      version: 3,
      isNew: false,
    });
    expect((await decisions.listDecisions('acme')).items.map((d) => [d.decisionId, d.latestVersion])).toEqual([['discount', 3]]);
  });

  it('deploys the decisions of one resource together, in input order, each with its name, and lists them paged by id', async () => {
    const xml = '<definitions><decision id="b"/><decision id="a"/></definitions>';
    const results = await decisions.deployDecisions('globex', [
      { decisionId: 'b', decisionName: 'Bee', resourceName: 'ab.dmn', xml },
      { decisionId: 'a', resourceName: 'ab.dmn', xml },
    ]);
    expect(results).toEqual([
      { decisionId: 'b', version: 1, checksum: checksumOf(xml), isNew: true },
      { decisionId: 'a', version: 1, checksum: checksumOf(xml), isNew: true },
    ]);
    const first = await decisions.listDecisions('globex', { limit: 1 });
    expect(first.items.map((d) => [d.decisionId, d.decisionName])).toEqual([['a', null]]);
    const second = await decisions.listDecisions('globex', { limit: 1, cursor: first.nextCursor });
    expect(second.items.map((d) => [d.decisionId, d.decisionName])).toEqual([['b', 'Bee']]);
    expect(second.nextCursor).toBeNull();
  });

  it('gives concurrent deploys of new decisions distinct versions, and concurrent deploys of one XML one version', async () => {
    const xmls = Array.from({ length: 4 }, (_, i) => `<definitions><decision id="race"/><!-- ${i} --></definitions>`);
    const results = await Promise.all(xmls.map((xml) => decisions.deployDecision('acme', { decisionId: 'race', resourceName: 'r.dmn', xml })));
    expect(results.every((r) => r.isNew)).toBe(true);
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    const same = '<definitions><decision id="race"/><!-- same --></definitions>';
    const repeated = await Promise.all(xmls.map(() => decisions.deployDecision('acme', { decisionId: 'race', resourceName: 'r.dmn', xml: same })));
    expect(repeated.filter((r) => r.isNew)).toHaveLength(1);
    expect(new Set(repeated.map((r) => r.version))).toEqual(new Set([5]));
    expect((await decisions.latestDecision('acme', 'race'))?.version).toBe(5);
  });

  it('rejects a decision without an id', async () => {
    await expect(decisions.deployDecision('acme', { decisionId: '', resourceName: 'x.dmn', xml: '<x/>' })).rejects.toThrow(/decisionId is required/);
  });
});
