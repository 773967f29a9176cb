// `orca simulate` on a CMMN case, called in-process: --start, --occur, timers
// on the simulated clock, and the jobs of a process task's child.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { caseXml } from '../engine/cmmn/testing.ts';
import { simulateCase } from './simulate-case.ts';

const order = readFileSync(new URL('../examples/order.bpmn', import.meta.url), 'utf8');

describe('simulateCase', () => {
  it('starts ENABLED items named by --start, fires timers on the simulated clock and runs process task children', () => {
    const xml = caseXml(
      '<planItem id="Manual" definitionRef="h"><itemControl><manualActivationRule/></itemControl></planItem>' +
        '<planItem id="Wait" definitionRef="tl"/><planItem id="Ship" definitionRef="pt"><entryCriterion sentryRef="s"/></planItem>' +
        '<sentry id="s"><planItemOnPart sourceRef="Wait"><standardEvent>occur</standardEvent></planItemOnPart></sentry>' +
        '<humanTask id="h"/><timerEventListener id="tl"><timerExpression>P1D</timerExpression></timerEventListener><processTask id="pt" processRef="order"/>',
    );
    const report = simulateCase([xml, order], { start: ['Manual'], variables: { orderId: 'A1' }, jobVariables: new Map([['ship', { tracking: 'T-9' }]]) });
    expect(report.state).toBe('COMPLETED');
    expect(report.timersFired).toBe(1);
    expect(report.jobs).toEqual([
      { type: 'userTask', elementId: 'Manual' },
      { type: 'ship', elementId: 'ship' },
    ]);
    expect(report.variables).toEqual({ orderId: 'A1', tracking: 'T-9' });
    expect(report.planItems.map((p) => [p.id, p.state])).toEqual([
      ['plan', 'COMPLETED'],
      ['Manual', 'COMPLETED'],
      ['Wait', 'COMPLETED'],
      ['Ship', 'COMPLETED'],
    ]);
  });

  it('reports an --occur that never found its listener ready, an ENABLED item nobody starts, and refuses --occur on a task', () => {
    const xml = caseXml(
      '<planItem id="Manual" definitionRef="h"><itemControl><manualActivationRule/></itemControl></planItem><planItem id="L" definitionRef="ev"/><humanTask id="h"/><userEventListener id="ev"/>',
    );
    const report = simulateCase([xml], { start: ['Manual'], occur: ['L', 'L'] });
    expect(report.state).toBe('COMPLETED');
    expect(report.notDone).toEqual(['--occur L']);
    const idle = simulateCase([xml], {});
    expect(idle.state).toBe('ACTIVE');
    expect(idle.planItems.find((p) => p.id === 'Manual')!.state).toBe('ENABLED');
    expect(() => simulateCase([xml], { occur: ['Manual'] })).toThrow("--occur Manual: 'Manual' is a humanTask; only a user event listener occurs when told");
  });

  it('names the problems of an invalid case', () => {
    expect(() => simulateCase([caseXml('<planItem id="A" definitionRef="missing"/>')], {})).toThrow(
      /the case model is invalid:\n {2}\[A\] plan item 'A' refers to definition 'missing'/,
    );
  });
});
