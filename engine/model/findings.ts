// What reading and validating a model turns up: problems (each with the
// element id and a sentence for the modeller) and the FEEL expressions still
// to be syntax-checked. One instance per process, so that findings in a
// non-executable process can be dropped with it.
import type { ModelProblem } from './types.ts';

export interface FeelCheck {
  elementId: string;
  /** What the expression is, for the message: "the condition of sequence flow 'F'". */
  what: string;
  source: string;
}

export class Findings {
  readonly problems: ModelProblem[] = [];
  readonly feel: FeelCheck[] = [];
  private readonly feelSeen = new Set<string>();

  problem(elementId: string | undefined, message: string): void {
    this.problems.push(elementId === undefined ? { message } : { elementId, message });
  }

  /** Queues `source` for a FEEL syntax check; the same expression on the same element is checked once. */
  checkFeel(elementId: string, what: string, source: string): void {
    const key = `${elementId}\u0000${what}\u0000${source}`;
    if (this.feelSeen.has(key)) return;
    this.feelSeen.add(key);
    this.feel.push({ elementId, what, source });
  }

  absorb(other: Findings): void {
    this.problems.push(...other.problems);
    for (const f of other.feel) this.checkFeel(f.elementId, f.what, f.source);
  }
}
