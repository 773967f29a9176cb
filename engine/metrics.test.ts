import { describe, expect, it } from 'vitest';
import { BatchTally, JOB_KINDS, jobKindOfElement, jobKindOfType, kindIndex } from './metrics.ts';

describe('job kinds', () => {
  it('come from the element waiting on the job', () => {
    expect(jobKindOfElement('serviceTask')).toBe('service');
    expect(jobKindOfElement('sendTask')).toBe('service');
    expect(jobKindOfElement('userTask')).toBe('user');
    expect(jobKindOfElement('scriptTask')).toBe('script');
    expect(jobKindOfElement('receiveTask')).toBe('message');
    expect(jobKindOfElement('intermediateCatchEvent')).toBe('event');
    expect(jobKindOfElement('businessRuleTask')).toBe('decision');
    expect(jobKindOfElement(undefined)).toBe('service');
  });

  it('fall back on the job type names SPEC.md gives the engine own waits, and never take the type itself', () => {
    expect(jobKindOfType('userTask')).toBe('user');
    expect(jobKindOfType('script:Compute total')).toBe('script');
    expect(jobKindOfType('message:order-paid')).toBe('message');
    expect(jobKindOfType('event:message:wait-1')).toBe('event');
    expect(jobKindOfType('charge-card')).toBe('service');
  });

  it('index KindCounts in JOB_KINDS order; a value that is no kind counts as service', () => {
    JOB_KINDS.forEach((kind, i) => expect(kindIndex(kind)).toBe(i));
    expect(kindIndex('constructor')).toBe(0);
    expect(kindIndex('charge-card')).toBe(0);
  });
});

describe('BatchTally', () => {
  it('counts rejections by reason, lower-cased from the rejection code', () => {
    const tally = new BatchTally();
    expect(tally.rejected).toBeUndefined();
    tally.reject('NOT_FOUND');
    tally.reject('NOT_FOUND');
    tally.reject('INVALID_STATE');
    expect(tally.rejected).toEqual({ not_found: 2, invalid_state: 1 });
  });
});
