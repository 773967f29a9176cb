// Public CMMN files from Camunda 7's and Flowable's test suites and from
// cmmn-js (test/fixtures/cmmn/SOURCES.md), each run to the outcome its own
// project's test expects. Camunda 7's newer tests (and Flowable) start a
// task without a manualActivationRule at once, so "enabled" in its older
// tests reads ACTIVE here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileCmmn } from './compile-cmmn.ts';
import { runCase } from './testing.ts';

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/cmmn/${name}`, import.meta.url), 'utf8');

describe('Camunda 7 sentry tests', () => {
  it('SentryEntryCriteriaTest.testSequence: each task starts when the one before completes', () => {
    const run = runCase(fixture('camunda7-sentry-sequence.cmmn'));
    expect(run.states()).toMatchObject({ PI_HumanTask_1: ['ACTIVE'], PI_HumanTask_2: ['AVAILABLE'], PI_HumanTask_3: ['AVAILABLE'] });
    run.complete('PI_HumanTask_1');
    expect(run.states()).toMatchObject({ PI_HumanTask_1: ['COMPLETED'], PI_HumanTask_2: ['ACTIVE'], PI_HumanTask_3: ['AVAILABLE'] });
    run.complete('PI_HumanTask_2');
    expect(run.states().PI_HumanTask_3).toEqual(['ACTIVE']);
    run.complete('PI_HumanTask_3');
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('SentryEntryCriteriaTest.testOrJoin: either of two entry criteria starts the task, the second has no effect', () => {
    const run = runCase(fixture('camunda7-sentry-or-join.cmmn'));
    expect(run.states().PI_HumanTask_3).toEqual(['AVAILABLE']);
    run.complete('PI_HumanTask_1');
    expect(run.states().PI_HumanTask_3).toEqual(['ACTIVE']);
    run.complete('PI_HumanTask_2');
    expect(run.states().PI_HumanTask_3).toEqual(['ACTIVE']);
  });

  it('SentryExitCriteriaTest.testExitCriteriaOnCasePlanModel: the case is terminated, not completed', () => {
    const run = runCase(fixture('camunda7-exit-case-plan-model.cmmn'));
    expect(run.states().PI_HumanTask_1).toEqual(['ACTIVE']);
    run.complete('PI_HumanTask_1');
    expect(run.instance().state).toBe('TERMINATED');
  });

  it('SentryEntryCriteriaTest.testSequenceWithIfPart: the JUEL if-part ${value >= 100} decides at the on-part event', () => {
    const notSatisfied = runCase(fixture('camunda7-sequence-if-part.cmmn'));
    notSatisfied.complete('PI_HumanTask_1', { value: 99 });
    expect(notSatisfied.states().PI_HumanTask_2).toEqual(['AVAILABLE']);
    const satisfied = runCase(fixture('camunda7-sequence-if-part.cmmn'));
    satisfied.complete('PI_HumanTask_1', { value: 100 });
    expect(satisfied.states().PI_HumanTask_2).toEqual(['ACTIVE']);
  });

  it('SentryEntryCriteriaTest.testSequenceAutoStartStage: the stage starts when the task completes, its items inside it', () => {
    const run = runCase(fixture('camunda7-sequence-auto-start-stage.cmmn'));
    expect(run.states()).toMatchObject({ PI_HumanTask_1: ['ACTIVE'], PI_Stage_1: ['AVAILABLE'] });
    run.complete('PI_HumanTask_1');
    expect(run.states()).toMatchObject({ PI_Stage_1: ['ACTIVE'], PI_HumanTask_2: ['ACTIVE'], PI_HumanTask_3: ['ACTIVE'] });
    const stageKey = run.item('PI_Stage_1').key;
    expect([run.item('PI_HumanTask_2').stageKey, run.item('PI_HumanTask_3').stageKey]).toEqual([stageKey, stageKey]);
  });

  it('SentryEntryCriteriaTest.testCycle: three items waiting on each other all stay AVAILABLE, and none starts by hand', () => {
    const run = runCase(fixture('camunda7-sentry-cycle.cmmn'));
    expect(run.states()).toMatchObject({ PI_HumanTask_1: ['AVAILABLE'], PI_HumanTask_2: ['AVAILABLE'], PI_HumanTask_3: ['AVAILABLE'] });
    expect(run.instance().state).toBe('ACTIVE');
    // Nor can one of them be started by hand: it is not ENABLED.
    expect(() => run.engine.command(run.key, { type: 'startPlanItem', planItemKey: run.item('PI_HumanTask_1').key })).toThrow(
      /is AVAILABLE; it can be started only when ENABLED/,
    );
  });

  it('SentryEntryCriteriaTest.testCaseFileItemOnPart: the case file item on-part is ignored with a warning', () => {
    const compiled = compileCmmn(fixture('camunda7-case-file-item-on-part.cmmn'));
    expect(compiled.ok && compiled.model.warnings.map((w) => [w.elementId, w.code])).toEqual([['Sentry_1', 'CMMN_CASE_FILE_ON_PART_IGNORED']]);
    const run = runCase(fixture('camunda7-case-file-item-on-part.cmmn'));
    expect(run.states().PI_HumanTask_1).toEqual(['ACTIVE']);
  });
});

describe('Flowable CMMN engine tests', () => {
  it('EntryCriteriaTest.testMultipleEntryCriteria: whichever task completes first, the milestone occurs once', () => {
    const tasks = ['planItemTask1', 'planItemTask2', 'planItemTask3'];
    for (const first of tasks) {
      const run = runCase(fixture('flowable-multiple-entry-criteria.cmmn'));
      expect(run.states()).toMatchObject({
        planItemTask1: ['ACTIVE'],
        planItemTask2: ['ACTIVE'],
        planItemTask3: ['ACTIVE'],
        planItemMileStoneOne: ['AVAILABLE'],
      });
      run.complete(first);
      expect(run.states().planItemMileStoneOne).toEqual(['COMPLETED']);
      for (const other of tasks.filter((t) => t !== first)) run.complete(other);
      expect(run.states().planItemMileStoneOne).toEqual(['COMPLETED']);
      expect(run.instance().state).toBe('COMPLETED');
    }
  });

  it('ExitCriteriaTest.testExitPlanModelOnMilestoneReached: A and B complete, the milestone occurs and exits the case', () => {
    const run = runCase(fixture('flowable-exit-plan-model-on-milestone.cmmn'));
    expect(run.states()).toMatchObject({ taskA: ['ACTIVE'], taskB: ['ACTIVE'], taskC: ['ACTIVE'], mileStone1: ['AVAILABLE'], taskD: ['AVAILABLE'] });
    // Flowable triggers its blocking generic tasks; Orca completes their userTask jobs.
    run.complete('taskA');
    expect(run.instance().state).toBe('ACTIVE');
    expect(run.states().mileStone1).toEqual(['AVAILABLE']);
    run.complete('taskB');
    expect(run.states()).toMatchObject({ mileStone1: ['COMPLETED'], taskC: ['TERMINATED'], taskD: ['TERMINATED'] });
    expect(run.instance().state).toBe('TERMINATED');
  });
});

describe('cmmn-js fixtures', () => {
  it('simple.cmmn (CMMN 1.1 beta namespace): one human task, then the case completes', () => {
    const run = runCase(fixture('cmmn-js-simple.cmmn'));
    expect(run.states().PI_Task_1).toEqual(['ACTIVE']);
    run.complete('PI_Task_1');
    expect(run.instance().state).toBe('COMPLETED');
  });
});
