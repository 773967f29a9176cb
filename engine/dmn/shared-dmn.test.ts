// Every .dmn file in shared/dmn (real models from Camunda 7 and 8 examples,
// dmn-scala, SDKs and benchmarks), compiled and evaluated. The expected
// results were worked out by reading each file's rules, not by running the
// engine; the comments say which rules a case hits.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileDmn, evaluateDecision } from './index.ts';

const directory = fileURLToPath(new URL('../../../shared/dmn/', import.meta.url));
const files = existsSync(directory)
  ? readdirSync(directory)
      .filter((f) => f.endsWith('.dmn'))
      .sort()
  : [];

interface Case {
  decision: string;
  variables: Record<string, unknown>;
  result: unknown;
  /** Matched rules of the requested decision, when worth pinning. */
  matchedRules?: string[];
  /** Decisions evaluated, in order, when the decision has requirements. */
  evaluated?: string[];
}

interface FailingCase {
  decision: string;
  variables: Record<string, unknown>;
  /** Substrings the error must contain. */
  error: string[];
}

type Expectation = { decisions: string[]; cases: Case[]; failures?: FailingCase[] } | { problems: { elementId: string; message: string }[] };

const expectations: Record<string, Expectation> = {
  // UNIQUE (default) over ten string literals.
  'bench-complex-decision.dmn': {
    decisions: ['benchmark-decision-2x10'],
    cases: [
      { decision: 'benchmark-decision-2x10', variables: { listItem: 'a' }, result: 'yes', matchedRules: ['DecisionRule_1fbcxga'] },
      {
        decision: 'benchmark-decision-2x10',
        variables: { listItem: 'c' },
        result: 'hey - Camunda starts with a c :-) ',
        matchedRules: ['DecisionRule_1blpajz'],
      },
      {
        decision: 'benchmark-decision-2x10',
        variables: { listItem: 'j' },
        result: 'also great if you need a  nested for each loop',
        matchedRules: ['DecisionRule_0p1t4rh'],
      },
      { decision: 'benchmark-decision-2x10', variables: { listItem: 'z' }, result: null, matchedRules: [] },
    ],
  },

  // UNIQUE; the second input is number(severity_ordinal), FEEL's string → number
  // conversion, so the ordinal is passed as a string.
  'bench-event-classification.dmn': {
    decisions: ['decision-classify-event'],
    cases: [
      {
        decision: 'decision-classify-event',
        variables: { metric_value: 'High priority', severity_ordinal: '95' },
        result: 'High priority',
        matchedRules: ['DecisionRule_1304bl5'],
      },
      {
        decision: 'decision-classify-event',
        variables: { metric_value: 'High priority', severity_ordinal: '90' },
        result: 'Low priority',
        matchedRules: ['DecisionRule_0m9thg1'],
      },
      {
        decision: 'decision-classify-event',
        variables: { metric_value: 'Low priority', severity_ordinal: '30' },
        result: 'High priority',
        matchedRules: ['DecisionRule_0twex84'],
      },
      {
        decision: 'decision-classify-event',
        variables: { metric_value: 'Low priority', severity_ordinal: '25' },
        result: 'Low priority',
        matchedRules: ['DecisionRule_1noomxr'],
      },
      {
        decision: 'decision-classify-event',
        variables: { metric_value: 'Ignore', severity_ordinal: '5' },
        result: 'Ignore',
        matchedRules: ['DecisionRule_16cpqrp'],
      },
      { decision: 'decision-classify-event', variables: { metric_value: 'Further Verification', severity_ordinal: '50' }, result: null },
    ],
  },

  // DMN 1.1 (Camunda 7). beverages (COLLECT) requires dish (UNIQUE) and reads
  // its result as `desiredDish`, the dish table's output name: the Camunda 7
  // way of exposing a required decision's result.
  'c7ex-dinner-decisions-drg.dmn': {
    decisions: ['beverages', 'dish'],
    cases: [
      { decision: 'dish', variables: { season: 'Winter', guestCount: 4 }, result: 'Roastbeef', matchedRules: ['row-506282952-2'] },
      { decision: 'dish', variables: { season: 'Spring', guestCount: 6 }, result: 'Steak', matchedRules: ['row-506282952-4'] },
      { decision: 'dish', variables: { season: 'Fall', guestCount: 10 }, result: 'Stew', matchedRules: ['row-506282952-5'] },
      { decision: 'dish', variables: { season: 'Summer', guestCount: 1 }, result: 'Light Salad and a nice Steak', matchedRules: ['row-506282952-6'] },
      // Roastbeef → Bordeaux; children → Apple Juice; Water always.
      {
        decision: 'beverages',
        variables: { season: 'Winter', guestCount: 4, guestsWithChildren: true },
        result: ['Bordeaux', 'Apple Juice', 'Water'],
        matchedRules: ['row-506282952-9', 'row-506282952-11', 'row-506282952-12'],
        evaluated: ['dish', 'beverages'],
      },
      // 12 guests in Fall → Stew → Guiness; no children.
      {
        decision: 'beverages',
        variables: { season: 'Fall', guestCount: 12, guestsWithChildren: false },
        result: ['Guiness', 'Water'],
        evaluated: ['dish', 'beverages'],
      },
      // Summer → the salad, listed in the Pinot Noir rule.
      { decision: 'beverages', variables: { season: 'Summer', guestCount: 2, guestsWithChildren: false }, result: ['Pinot Noir', 'Water'] },
    ],
  },

  // The input is the constant "test" and the only entry is empty: always "yolo".
  'chaos-fancy-decision.dmn': {
    decisions: ['fancyDecision'],
    cases: [
      { decision: 'fancyDecision', variables: {}, result: 'yolo', matchedRules: ['DecisionRule_1ld2c9k'] },
      { decision: 'fancyDecision', variables: { test: 'other' }, result: 'yolo' },
    ],
  },

  // UNIQUE, but rules 1 (< 10) and 2 (>= 9) overlap for Business at 9.
  'dmnscala-discount-dmn13.dmn': {
    decisions: ['discount'],
    cases: [
      { decision: 'discount', variables: { customer: 'Business', orderSize: 5 }, result: 0.1, matchedRules: ['row-958866071-1'] },
      { decision: 'discount', variables: { customer: 'Business', orderSize: 15 }, result: 0.15, matchedRules: ['row-958866071-2'] },
      { decision: 'discount', variables: { customer: 'Private', orderSize: 100 }, result: 0.05, matchedRules: ['row-958866071-3'] },
      { decision: 'discount', variables: { customer: 'Other', orderSize: 1 }, result: null },
    ],
    failures: [{ decision: 'discount', variables: { customer: 'Business', orderSize: 9 }, error: ['UNIQUE', "'row-958866071-1'", "'row-958866071-2'"] }],
  },

  // COLLECT SUM (DMN 1.1): 22 for everyone, +5 under 18, +5 from 60, +5 from 30
  // years of service, +2 for [18..60) with [15..30) years, +3 from 60, +3 from 30 years.
  'dmnscala-holidays-collect-sum.dmn': {
    decisions: ['holidays'],
    cases: [
      {
        decision: 'holidays',
        variables: { age: 58, yearsOfService: 31 },
        result: 30,
        matchedRules: ['row-723033347-18', 'row-723033347-21', 'row-723033347-24'],
      },
      { decision: 'holidays', variables: { age: 16, yearsOfService: 1 }, result: 27 },
      { decision: 'holidays', variables: { age: 65, yearsOfService: 20 }, result: 30 },
      { decision: 'holidays', variables: { age: 25, yearsOfService: 20 }, result: 24 },
      { decision: 'holidays', variables: { age: 45, yearsOfService: 10 }, result: 22 },
    ],
  },

  // OUTPUT ORDER by outputValues 22, 5, 3, 2.
  'dmnscala-holidays-output-order.dmn': {
    decisions: ['holidays'],
    cases: [
      // rule 18 (22), rule 20 (3: 30+ years), rule 23 (5: 30+ years) → sorted 22, 5, 3.
      {
        decision: 'holidays',
        variables: { age: 58, yearsOfService: 31 },
        result: [22, 5, 3],
        matchedRules: ['row-723033347-18', 'row-723033347-23', 'row-723033347-20'],
      },
      { decision: 'holidays', variables: { age: 16, yearsOfService: 1 }, result: [22, 5] },
      // rules 24 ([18..60), [15..30)) and 25 ([45..60), < 30) both give 2.
      {
        decision: 'holidays',
        variables: { age: 50, yearsOfService: 20 },
        result: [22, 2, 2],
        matchedRules: ['row-723033347-18', 'row-723033347-24', 'row-723033347-25'],
      },
      { decision: 'holidays', variables: { age: 62, yearsOfService: 35 }, result: [22, 5, 5, 3, 3] },
    ],
  },

  // COLLECT MIN: 200 always, 190 over 2 years, 170 over 5, 150 over 10, 100 over 15.
  'dmnscala-insurance-fee-collect-min.dmn': {
    decisions: ['insuranceFee'],
    cases: [
      { decision: 'insuranceFee', variables: { years: 12 }, result: 150, matchedRules: ['row-8003113-5', 'row-8003113-6', 'row-8003113-7', 'row-8003113-8'] },
      { decision: 'insuranceFee', variables: { years: 1 }, result: 200 },
      { decision: 'insuranceFee', variables: { years: 3 }, result: 190 },
      { decision: 'insuranceFee', variables: { years: 20 }, result: 100 },
    ],
  },

  // ANY: rule 6 is the only "Compliant" one and excludes the others, so matches always agree.
  'dmnscala-loan-compliance-any.dmn': {
    decisions: ['personLoanCompliance'],
    cases: [
      {
        decision: 'personLoanCompliance',
        variables: { creditRating: 'A', creditBalance: 5000, loanBalance: 10000 },
        result: 'Compliant',
        matchedRules: ['row-723033347-6'],
      },
      {
        decision: 'personLoanCompliance',
        variables: { creditRating: 'B', creditBalance: 20000, loanBalance: 60000 },
        result: 'Not Compliant',
        matchedRules: ['row-723033347-7', 'row-723033347-8', 'row-723033347-9'],
      },
      {
        decision: 'personLoanCompliance',
        variables: { creditRating: 'A', creditBalance: 20000, loanBalance: 10000 },
        result: 'Not Compliant',
        matchedRules: ['row-723033347-8'],
      },
      {
        decision: 'personLoanCompliance',
        variables: { creditRating: 'A', creditBalance: 5000, loanBalance: 50000 },
        result: 'Not Compliant',
        matchedRules: ['row-723033347-9'],
      },
    ],
  },

  // RULE ORDER (the input is spelt acitvitiesCount in the model).
  'dmnscala-student-eligibility-rule-order.dmn': {
    decisions: ['eligibility'],
    cases: [
      {
        decision: 'eligibility',
        variables: { gpa: 3.8, acitvitiesCount: 5, socialMembership: 'Yes' },
        result: ['20% Scholarship', '30% Loan'],
        matchedRules: ['row-723033347-26', 'row-723033347-27'],
      },
      { decision: 'eligibility', variables: { gpa: 3.2, acitvitiesCount: 3, socialMembership: 'No' }, result: ['20% Work-On-Campus'] },
      { decision: 'eligibility', variables: { gpa: 2.5, acitvitiesCount: 0, socialMembership: 'Yes' }, result: ['5% Work-On-Campus'] },
      { decision: 'eligibility', variables: { gpa: 3.2, acitvitiesCount: 1, socialMembership: 'No' }, result: [] },
    ],
  },

  // UNIQUE with requiredInput links to inputData (values come from the variables).
  'jssdk-quarantine-duration.dmn': {
    decisions: ['Decision_Quarantine'],
    cases: [
      {
        decision: 'Decision_Quarantine',
        variables: { employment_category: 'critical infrastructure', age: 25 },
        result: 'P5D',
        matchedRules: ['DecisionRule_0gdlhm9'],
      },
      {
        decision: 'Decision_Quarantine',
        variables: { employment_category: 'non-critical infrastructure', age: 30 },
        result: 'P7D',
        matchedRules: ['DecisionRule_1bu9re1'],
      },
      {
        decision: 'Decision_Quarantine',
        variables: { employment_category: 'critical infrastructure', age: 45 },
        result: 'P10D',
        matchedRules: ['DecisionRule_13oo3zh'],
      },
    ],
  },

  // A diagram skeleton from the modeler: three decisions (Foo requires Bar and
  // Baz) none of which has decision logic, so there is nothing to evaluate and
  // deploying it is rejected with one problem per decision.
  'modeler-baz-drd.dmn': {
    problems: [
      { elementId: 'BarDecision', message: "decision 'BarDecision' has no decision logic (expected a decisionTable or a literalExpression)" },
      { elementId: 'BazDecision', message: "decision 'BazDecision' has no decision logic (expected a decisionTable or a literalExpression)" },
      { elementId: 'FooDecision', message: "decision 'FooDecision' has no decision logic (expected a decisionTable or a literalExpression)" },
    ],
  },

  // UNIQUE with outputs of three types (typeRef is not enforced); an empty outputValues.
  'pyzeebe-test.dmn': {
    decisions: ['test'],
    cases: [
      { decision: 'test', variables: { input: '1' }, result: 'One', matchedRules: ['DecisionRule_0zumznl'] },
      { decision: 'test', variables: { input: '2' }, result: { foo: 'bar' }, matchedRules: ['DecisionRule_1utwb1e'] },
      { decision: 'test', variables: { input: '3' }, result: 3, matchedRules: ['DecisionRule_1bwgcym'] },
      // The entries are strings; the number 1 is not "1".
      { decision: 'test', variables: { input: 1 }, result: null },
    ],
  },

  // force_user (FIRST) reads jedi_or_sith by decision id (Camunda 8 style).
  'zeebe-client-drg-force-user.dmn': {
    decisions: ['jedi_or_sith', 'force_user'],
    cases: [
      { decision: 'jedi_or_sith', variables: { lightsaberColor: 'green' }, result: 'Jedi', matchedRules: ['DecisionRule_1utwb1e'] },
      { decision: 'jedi_or_sith', variables: { lightsaberColor: 'purple' }, result: null },
      {
        decision: 'force_user',
        variables: { lightsaberColor: 'blue', height: 195 },
        result: 'Mace Windu',
        matchedRules: ['DecisionRule_13zidc5'],
        evaluated: ['jedi_or_sith', 'force_user'],
      },
      { decision: 'force_user', variables: { lightsaberColor: 'blue', height: 185 }, result: 'Obi-Wan Kenobi', matchedRules: ['DecisionRule_0uin2hk'] },
      { decision: 'force_user', variables: { lightsaberColor: 'green', height: 66 }, result: 'Yoda', matchedRules: ['DecisionRule_0mpio0p'] },
      { decision: 'force_user', variables: { lightsaberColor: 'red', height: 202 }, result: 'Darth Vader', matchedRules: ['DecisionRule_06paffx'] },
      { decision: 'force_user', variables: { lightsaberColor: 'red', height: 175 }, result: 'Darth Sidius', matchedRules: ['DecisionRule_1ua4pcl'] },
      { decision: 'force_user', variables: { lightsaberColor: 'purple', height: 180 }, result: 'unknown', matchedRules: ['DecisionRule_00ew25e'] },
    ],
  },

  // FIRST: four illegal items, anything else legal.
  'zp-is-legal-good.dmn': {
    decisions: ['is_legal_item'],
    cases: [
      { decision: 'is_legal_item', variables: { item: 'spice' }, result: false, matchedRules: ['DecisionRule_0w8qwl8'] },
      { decision: 'is_legal_item', variables: { item: 'ancient artifacts' }, result: false, matchedRules: ['DecisionRule_1v9twx5'] },
      { decision: 'is_legal_item', variables: { item: 'bread' }, result: true, matchedRules: ['DecisionRule_1dsosyr'] },
    ],
  },

  // decision_a (UNIQUE) reads decision_b (FIRST: > 10 high, > 5 mid, else low) by id.
  'zp-rating-drg.dmn': {
    decisions: ['decision_a', 'decision_b'],
    cases: [
      { decision: 'decision_a', variables: { x: 11 }, result: 'A++', matchedRules: ['DecisionRule_1sz0j2x'], evaluated: ['decision_b', 'decision_a'] },
      { decision: 'decision_a', variables: { x: 6 }, result: 'A+', matchedRules: ['DecisionRule_0gt2ru5'] },
      { decision: 'decision_a', variables: { x: 1 }, result: 'A', matchedRules: ['DecisionRule_0ecrw8b'] },
      { decision: 'decision_b', variables: { x: 10 }, result: 'mid', matchedRules: ['DecisionRule_018nu5a'], evaluated: ['decision_b'] },
    ],
  },
};

describe.skipIf(files.length === 0)(`shared DMN models (${directory})`, () => {
  it('has an expectation for every file', () => {
    expect(files.filter((f) => !(f in expectations))).toEqual([]);
  });

  for (const file of files) {
    const expectation = expectations[file];
    if (expectation === undefined) continue;
    describe(file, () => {
      const compiled = compileDmn(readFileSync(directory + file, 'utf8'));

      if ('problems' in expectation) {
        it('is rejected with a clear problem per element', () => {
          expect(compiled).toEqual({ ok: false, problems: expectation.problems });
        });
        return;
      }

      it('compiles and lists its decisions', () => {
        if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems, null, 2));
        expect(compiled.model.decisions.map((d) => d.id)).toEqual(expectation.decisions);
      });

      for (const c of expectation.cases) {
        it(`${c.decision} ${JSON.stringify(c.variables)} → ${JSON.stringify(c.result)}`, () => {
          if (!compiled.ok) throw new Error('does not compile');
          const evaluated = evaluateDecision(compiled.model, c.decision, c.variables);
          if (!evaluated.ok) throw new Error(evaluated.error);
          expect(evaluated.result).toEqual(c.result);
          const last = evaluated.evaluated[evaluated.evaluated.length - 1];
          expect(last.decisionId).toBe(c.decision);
          if (c.matchedRules) expect(last.matchedRules).toEqual(c.matchedRules);
          if (c.evaluated) expect(evaluated.evaluated.map((e) => e.decisionId)).toEqual(c.evaluated);
        });
      }

      for (const f of expectation.failures ?? []) {
        it(`${f.decision} ${JSON.stringify(f.variables)} fails`, () => {
          if (!compiled.ok) throw new Error('does not compile');
          const evaluated = evaluateDecision(compiled.model, f.decision, f.variables);
          expect(evaluated).toMatchObject({ ok: false, decisionId: f.decision });
          if (!evaluated.ok) for (const part of f.error) expect(evaluated.error).toContain(part);
        });
      }
    });
  }
});

describe.skipIf(files.length > 0)('shared DMN models', () => {
  it(`skipped: no .dmn files found in ${directory}`, () => {});
});
