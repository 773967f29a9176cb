// The shapes of the console's read APIs that more than one route answers
// with: per-element counts (a definition version's and an instance's), and
// the instance statistics around them.
import { z } from 'zod';

const countsSchema = {
  active: z.number().int().describe('Element instances alive, not stuck on an incident.'),
  incidents: z
    .number()
    .int()
    .describe('Element instances stuck on an incident (closing the incident record does not change this: the instance stays INCIDENT).'),
  completed: z.number().int(),
  canceled: z.number().int().describe('Element instances terminated (ELEMENT_TERMINATED), e.g. by a cancel, an interrupting event or a boundary.'),
};
export const elementCountsSchema = z.object({ elementId: z.string(), ...countsSchema });

export const instanceStatisticsSchema = z.object({
  processInstanceKey: z.string(),
  elements: z.array(elementCountsSchema),
  sequenceFlows: z.array(z.object({ elementId: z.string(), taken: z.number().int().describe('Times the flow was taken.') })),
});
