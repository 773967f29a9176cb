// DMN evaluation under the FEEL limits: a literal expression or an entry
// that hits one fails the decision with an error naming the decision, the
// entry and the limit; all the FEEL of one decision evaluation (required
// decisions included) shares one time scope.
import { describe, expect, it } from 'vitest';
import { timeScopeOf } from '../feel/deadline.ts';
import { compileDmn, evaluateDecision } from './index.ts';
import { definitions, literalDecision, tableDecision } from './fixture.ts';
import type { CompiledDmn } from './types.ts';

function compiled(xml: string): CompiledDmn {
  const result = compileDmn(xml);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.model;
}

describe('DMN evaluation is bounded', () => {
  it('a literal expression over the item limit fails its decision, naming decision, expression and limit', () => {
    const model = compiled(definitions(literalDecision({ id: 'greedy', name: 'Greedy', text: 'count(for i in 1..100000000 return i) > 0' })));
    const result = evaluateDecision(model, 'greedy', {});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.decisionId).toBe('greedy');
    expect(result.error).toContain("decision 'greedy' (Greedy)");
    expect(result.error).toContain('count(for i in 1..100000000 return i) > 0');
    expect(result.error).toMatch(/item limit of one evaluation/);
  });

  it('an output entry building a string past the limit fails its decision', () => {
    const model = compiled(
      definitions(tableDecision({ id: 'wordy', inputs: ['x'], outputs: ['out'], rules: [[['-'], ['string join(for i in 1..20 return s)']]] })),
    );
    const result = evaluateDecision(model, 'wordy', { x: 1, s: 'y'.repeat(900_000) });
    expect(!result.ok && result.error).toMatch(/rule 'wordy-r1' .*output 'out'.*string limit/);
  });

  it('a required decision draws on the same time scope as its dependant', () => {
    const model = compiled(
      definitions(
        literalDecision({ id: 'first', text: 'count(for i in 1..3 return i)', variable: 'first' }) +
          literalDecision({ id: 'second', text: 'first + count(for i in 1..3 return i)', requires: ['first'] }),
      ),
    );
    expect(evaluateDecision(model, 'second', {})).toMatchObject({ ok: true, result: 6 });
    const spent = {};
    timeScopeOf(spent).spentMs = Number.POSITIVE_INFINITY;
    const result = evaluateDecision(model, 'second', {}, spent);
    expect(result).toMatchObject({ ok: false, decisionId: 'first' });
    expect(!result.ok && result.error).toMatch(/time limit they share/);
  });
});
