// CMMN 1.1 XML → CompiledCmmn, or every problem found, each with the id of
// the element it concerns. The deploy-time step: references between plan
// items, criteria and sentries are resolved and FEEL is syntax-checked here,
// so the case runtime neither parses nor validates. Never throws.
import { feelSyntaxError } from '../feel/index.ts';
import { LIMITS } from '../limits.ts';
import type { ModelProblem, ModelWarning } from '../model/types.ts';
import { readDeclaredXml } from '../xml/read-declared.ts';
import { CMMN11_BETA_NS, CMMN11_NS, CaseReader, cmmnChildren, type ReadCase } from './read-case.ts';
import type { CaseModel, CompileCmmnResult } from './types.ts';

const CMMN10_NS = 'http://www.omg.org/spec/CMMN/20131201/MODEL';

export interface CompileCmmnOptions {
  /** Largest document in UTF-8 bytes; LIMITS.maxModelBytes when absent. */
  maxBytes?: number;
}

export function compileCmmn(xml: string, options: CompileCmmnOptions = {}): CompileCmmnResult {
  try {
    return compile(xml, options);
  } catch (err) {
    // Defensive: a bug here must surface as a deploy problem, not a crashed request.
    return { ok: false, problems: [{ message: `internal error while compiling the CMMN document: ${err instanceof Error ? err.message : String(err)}` }] };
  }
}

function compile(xml: string, options: CompileCmmnOptions): CompileCmmnResult {
  // CMMN files, like DMN files, must declare every prefix they use.
  const parsed = readDeclaredXml(xml, options.maxBytes ?? LIMITS.maxModelBytes, 'CMMN');
  if (!parsed.ok) return { ok: false, problems: [{ message: parsed.message }] };
  const root = parsed.root;
  if (root.ns === CMMN10_NS) {
    return {
      ok: false,
      problems: [
        {
          elementId: root.attrs.id,
          message:
            `this is a CMMN 1.0 document (namespace ${CMMN10_NS}); Orca reads CMMN 1.1. Change the namespace to ${CMMN11_NS} and replace each planItem's ` +
            'entryCriteriaRefs / exitCriteriaRefs attributes with <entryCriterion sentryRef="…"/> / <exitCriterion sentryRef="…"/> children (Camunda Modeler and cmmn-js save CMMN 1.1).',
        },
      ],
    };
  }
  if ((root.ns !== CMMN11_NS && root.ns !== CMMN11_BETA_NS) || root.local !== 'definitions') {
    return { ok: false, problems: [{ message: `the root element must be <definitions> in the CMMN 1.1 namespace ${CMMN11_NS}, not <${root.qname}>` }] };
  }
  const processRefs = new Map<string, string>();
  for (const child of cmmnChildren(root)) {
    if (child.local === 'process' && child.attrs.id) processRefs.set(child.attrs.id, child.attrs.externalRef || child.attrs.id);
  }
  const problems: ModelProblem[] = [];
  const warnings: ModelWarning[] = [];
  const cases: CaseModel[] = [];
  const seen = new Set<string>();
  for (const child of cmmnChildren(root)) {
    if (child.local === 'decision')
      problems.push({ elementId: child.attrs.id, message: 'decisions inside a CMMN document are not supported; deploy the DMN file on its own' });
    if (child.local !== 'case') continue;
    const reader = new CaseReader(processRefs);
    const read = reader.read(child);
    warnings.push(...reader.warnings);
    if (read !== undefined) {
      if (seen.has(read.id)) reader.findings.problem(read.id, `the case id '${read.id}' is used more than once`);
      seen.add(read.id);
      checkReferences(read, reader.findings);
    }
    for (const check of reader.findings.feel) {
      const error = feelSyntaxError(check.source);
      if (error !== undefined) reader.findings.problem(check.elementId, `${check.what} is not valid FEEL: ${error}`);
    }
    problems.push(...reader.findings.problems);
    if (read !== undefined && reader.findings.problems.length === 0) cases.push(toModel(read));
  }
  if (problems.length === 0 && cases.length === 0) problems.push({ elementId: root.attrs.id, message: 'the CMMN document contains no case' });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, model: { cases, warnings } };
}

function checkReferences(read: ReadCase, findings: CaseReader['findings']): void {
  for (const item of Object.values(read.planItems)) {
    for (const ref of [...item.entry, ...item.exit]) {
      if (!(ref in read.sentries)) findings.problem(item.id, `a criterion of '${item.id}' refers to sentry '${ref}', which does not exist`);
    }
  }
  for (const sentry of Object.values(read.sentries)) {
    for (const part of sentry.onParts) {
      if (!(part.sourceId in read.planItems))
        findings.problem(sentry.id, `sentry '${sentry.id}' listens to '${part.sourceId}', which is not a plan item of case '${read.id}'`);
    }
  }
}

function toModel(read: ReadCase): CaseModel {
  const listeners: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const item of Object.values(read.planItems)) {
    for (const ref of [...item.entry, ...item.exit]) {
      for (const part of read.sentries[ref].onParts) {
        const list = (listeners[part.sourceId] ??= []);
        if (!list.includes(item.id)) list.push(item.id);
      }
    }
  }
  const model: CaseModel = {
    id: read.id,
    rootId: read.rootId,
    planItems: read.planItems,
    sentries: read.sentries,
    listeners,
    caseFileItems: read.caseFileItems,
  };
  if (read.name !== undefined) model.name = read.name;
  return model;
}
