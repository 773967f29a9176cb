// DMN XML (1.1, 1.2, 1.3) → a plain, version-independent description of the
// decisions: raw expression texts, requirement references and attributes. It
// decides nothing about FEEL or hit policies; compile-dmn.ts does. Elements
// are matched by namespace URI, never by prefix, and the three versions share
// the element and attribute names this engine reads.
import type { XmlElement } from './parse-xml.ts';
import type { DmnProblem, DmnVersion } from './types.ts';

const DMN_NAMESPACES: ReadonlyMap<string, DmnVersion> = new Map([
  ['http://www.omg.org/spec/DMN/20151101/dmn.xsd', '1.1'],
  ['http://www.omg.org/spec/DMN/20180521/MODEL/', '1.2'],
  ['https://www.omg.org/spec/DMN/20191111/MODEL/', '1.3'],
]);

/** Boxed expressions DMN allows as decision logic that this engine does not evaluate. */
const UNSUPPORTED_LOGIC = new Set(['context', 'invocation', 'relation', 'list', 'functionDefinition', 'conditional', 'filter', 'for', 'every', 'some']);

export interface RawDefinitions {
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly namespace: string | undefined;
  readonly version: DmnVersion;
  readonly decisions: RawDecision[];
  /** inputData id → name */
  readonly inputData: Map<string, string>;
}

export interface RawDecision {
  readonly id: string | undefined;
  readonly name: string | undefined;
  /** Targets of informationRequirement/requiredDecision, as written in href. */
  readonly requiredDecisions: string[];
  /** Targets of informationRequirement/requiredInput, as written in href. */
  readonly requiredInputs: string[];
  readonly logic: RawDecisionTable | RawLiteralExpression | { kind: 'missing' } | { kind: 'unsupported'; element: string };
}

/** Expression text with the expression language in force for it (own attribute, else inherited). */
export interface RawExpression {
  readonly id: string | undefined;
  readonly text: string | undefined;
  readonly language: string | undefined;
}

export interface RawDecisionTable {
  readonly kind: 'decisionTable';
  readonly id: string | undefined;
  readonly hitPolicy: string | undefined;
  readonly aggregation: string | undefined;
  readonly inputs: RawInput[];
  readonly outputs: RawOutput[];
  readonly rules: RawRule[];
}

export interface RawInput {
  readonly id: string | undefined;
  readonly label: string | undefined;
  readonly expression: RawExpression | undefined;
}

export interface RawOutput {
  readonly id: string | undefined;
  readonly label: string | undefined;
  readonly name: string | undefined;
  readonly outputValues: RawExpression | undefined;
}

export interface RawRule {
  readonly id: string | undefined;
  readonly inputEntries: RawExpression[];
  readonly outputEntries: RawExpression[];
}

export interface RawLiteralExpression {
  readonly kind: 'literalExpression';
  readonly expression: RawExpression;
  readonly variableName: string | undefined;
}

export type ParseDmnResult = { ok: true; definitions: RawDefinitions } | { ok: false; problems: DmnProblem[] };

export function parseDmn(root: XmlElement): ParseDmnResult {
  const version = DMN_NAMESPACES.get(root.ns);
  if (version === undefined || root.local !== 'definitions') {
    const found = root.ns === '' ? `<${root.local}> without a namespace` : `<${root.local}> in namespace '${root.ns}'`;
    return {
      ok: false,
      problems: [
        {
          message: `not a DMN document: expected a <definitions> root in a DMN 1.1, 1.2 or 1.3 namespace (${[...DMN_NAMESPACES.keys()].join(', ')}), found ${found}`,
        },
      ],
    };
  }
  const reader = new DmnReader(root.ns);
  const language = root.attrs.expressionLanguage;
  const decisions: RawDecision[] = [];
  const inputData = new Map<string, string>();
  for (const child of reader.children(root)) {
    if (child.local === 'decision') decisions.push(reader.decision(child, language));
    else if (child.local === 'inputData') {
      const id = child.attrs.id;
      if (id !== undefined) inputData.set(id, child.attrs.name ?? id);
    }
  }
  return {
    ok: true,
    definitions: {
      id: root.attrs.id,
      name: root.attrs.name,
      namespace: root.attrs.namespace,
      version,
      decisions,
      inputData,
    },
  };
}

class DmnReader {
  constructor(private readonly ns: string) {}

  children(element: XmlElement, localName?: string): XmlElement[] {
    return element.children.filter((c) => c.ns === this.ns && (localName === undefined || c.local === localName));
  }

  child(element: XmlElement, localName: string): XmlElement | undefined {
    return element.children.find((c) => c.ns === this.ns && c.local === localName);
  }

  decision(element: XmlElement, language: string | undefined): RawDecision {
    const requiredDecisions: string[] = [];
    const requiredInputs: string[] = [];
    for (const requirement of this.children(element, 'informationRequirement')) {
      for (const ref of this.children(requirement, 'requiredDecision')) requiredDecisions.push(ref.attrs.href ?? '');
      for (const ref of this.children(requirement, 'requiredInput')) requiredInputs.push(ref.attrs.href ?? '');
    }
    // knowledgeRequirement / authorityRequirement document the model; they do not feed evaluation.
    return {
      id: element.attrs.id,
      name: element.attrs.name,
      requiredDecisions,
      requiredInputs,
      logic: this.logic(element, language),
    };
  }

  private logic(decision: XmlElement, language: string | undefined): RawDecision['logic'] {
    for (const child of this.children(decision)) {
      if (child.local === 'decisionTable') return this.decisionTable(child, language);
      if (child.local === 'literalExpression') {
        return {
          kind: 'literalExpression',
          expression: this.expression(child, language),
          variableName: this.child(decision, 'variable')?.attrs.name,
        };
      }
      if (UNSUPPORTED_LOGIC.has(child.local)) return { kind: 'unsupported', element: child.local };
    }
    return { kind: 'missing' };
  }

  private decisionTable(table: XmlElement, language: string | undefined): RawDecisionTable {
    const inputs = this.children(table, 'input').map((input): RawInput => {
      const expression = this.child(input, 'inputExpression');
      return {
        id: input.attrs.id,
        label: input.attrs.label,
        expression: expression && this.expression(expression, language),
      };
    });
    const outputs = this.children(table, 'output').map((output): RawOutput => {
      const values = this.child(output, 'outputValues');
      return {
        id: output.attrs.id,
        label: output.attrs.label,
        name: output.attrs.name,
        outputValues: values && this.expression(values, language),
      };
    });
    const rules = this.children(table, 'rule').map((rule): RawRule => ({
      id: rule.attrs.id,
      inputEntries: this.children(rule, 'inputEntry').map((e) => this.expression(e, language)),
      outputEntries: this.children(rule, 'outputEntry').map((e) => this.expression(e, language)),
    }));
    return {
      kind: 'decisionTable',
      id: table.attrs.id,
      hitPolicy: table.attrs.hitPolicy,
      aggregation: table.attrs.aggregation,
      inputs,
      outputs,
      rules,
    };
  }

  private expression(element: XmlElement, inherited: string | undefined): RawExpression {
    const text = this.child(element, 'text');
    return {
      id: element.attrs.id,
      text: text?.text,
      language: element.attrs.expressionLanguage ?? inherited,
    };
  }
}
