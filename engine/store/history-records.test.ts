import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../runtime/types.ts';
import { decodeRecord, encodeRecord } from './history-records.ts';

describe('history records as stored', () => {
  const records: HistoryRecord[] = [
    { type: 'PROCESS_INSTANCE_STARTED', at: 1, elementId: 'p', elementType: 'process', detail: { version: 2 } },
    { type: 'ELEMENT_ACTIVATED', at: 2, elementId: 'task', elementType: 'serviceTask', elementInstanceKey: '12' },
    { type: 'SEQUENCE_FLOW_TAKEN', at: 3, elementId: 'f1', elementType: 'sequenceFlow' },
    { type: 'JOB_CREATED', at: 4, elementId: 'task', elementInstanceKey: '12', jobKey: '13', detail: { jobType: 'work', retries: 3 } },
    { type: 'INCIDENT_CREATED', at: 5, incidentKey: '14' },
  ];

  it('round-trips every field, leaving absent ones absent', () => {
    for (const record of records) expect(decodeRecord(encodeRecord(record))).toStrictEqual(record);
  });

  it('is an array in field order without trailing gaps, and shorter than the object', () => {
    expect(encodeRecord(records[2])).toEqual(['SEQUENCE_FLOW_TAKEN', 3, 'f1', 'sequenceFlow']);
    expect(encodeRecord(records[4])).toEqual(['INCIDENT_CREATED', 5, null, null, null, null, '14']);
    for (const record of records) expect(JSON.stringify(encodeRecord(record)).length).toBeLessThan(JSON.stringify(record).length);
  });

  it('reads rows written before the encoding (objects) as they are', () => {
    expect(decodeRecord(records[1])).toBe(records[1]);
  });
});
