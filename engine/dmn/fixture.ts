// Test fixtures: small DMN documents written from a compact description, so
// each test shows its table as data. Rule ids are `<decisionId>-r<n>`.

export const DMN11 = 'http://www.omg.org/spec/DMN/20151101/dmn.xsd';
export const DMN12 = 'http://www.omg.org/spec/DMN/20180521/MODEL/';
export const DMN13 = 'https://www.omg.org/spec/DMN/20191111/MODEL/';

export interface TableSpec {
  id: string;
  name?: string;
  hitPolicy?: string;
  aggregation?: string;
  /** Input expression texts. */
  inputs: string[];
  /** Output names, or names with an outputValues list. */
  outputs: (string | { name: string; values: string })[];
  /** [input entries, output entries] per rule. */
  rules: [string[], string[]][];
  /** Ids of required decisions. */
  requires?: string[];
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function requirements(requires: string[] | undefined): string {
  return (requires ?? []).map((id) => `<informationRequirement><requiredDecision href="#${id}"/></informationRequirement>`).join('');
}

export function tableDecision(spec: TableSpec): string {
  const policy = spec.hitPolicy === undefined ? '' : ` hitPolicy="${spec.hitPolicy}"`;
  const aggregation = spec.aggregation === undefined ? '' : ` aggregation="${spec.aggregation}"`;
  const inputs = spec.inputs
    .map((text, i) => `<input id="${spec.id}-in${i + 1}"><inputExpression id="${spec.id}-ie${i + 1}"><text>${escapeXml(text)}</text></inputExpression></input>`)
    .join('');
  const outputs = spec.outputs
    .map((o, i) => {
      const name = typeof o === 'string' ? o : o.name;
      const values = typeof o === 'string' ? '' : `<outputValues><text>${escapeXml(o.values)}</text></outputValues>`;
      return `<output id="${spec.id}-out${i + 1}" name="${name}">${values}</output>`;
    })
    .join('');
  const rules = spec.rules
    .map(([ins, outs], r) => {
      const id = `${spec.id}-r${r + 1}`;
      const inputEntries = ins.map((t, c) => `<inputEntry id="${id}-i${c + 1}"><text>${escapeXml(t)}</text></inputEntry>`).join('');
      const outputEntries = outs.map((t, c) => `<outputEntry id="${id}-o${c + 1}"><text>${escapeXml(t)}</text></outputEntry>`).join('');
      return `<rule id="${id}">${inputEntries}${outputEntries}</rule>`;
    })
    .join('');
  return (
    `<decision id="${spec.id}" name="${spec.name ?? spec.id}">${requirements(spec.requires)}` +
    `<decisionTable id="${spec.id}-table"${policy}${aggregation}>${inputs}${outputs}${rules}</decisionTable></decision>`
  );
}

export function literalDecision(spec: { id: string; name?: string; text: string; variable?: string; requires?: string[] }): string {
  const variable = spec.variable === undefined ? '' : `<variable name="${spec.variable}"/>`;
  return (
    `<decision id="${spec.id}" name="${spec.name ?? spec.id}">${variable}${requirements(spec.requires)}` +
    `<literalExpression id="${spec.id}-expr"><text>${escapeXml(spec.text)}</text></literalExpression></decision>`
  );
}

export function definitions(body: string, namespace: string = DMN13): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<definitions xmlns="${namespace}" id="defs" name="Test" namespace="http://example.com/dmn">${body}</definitions>`;
}
