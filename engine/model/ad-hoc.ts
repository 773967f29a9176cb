// Ad-hoc subprocesses as Zeebe 8.8 runs them: reading zeebe:adHoc,
// bpmn:completionCondition, cancelRemainingInstances and, for the job worker
// implementation (the AI agent pattern), the zeebe:taskDefinition on the
// subprocess itself; working out which inner elements a path may start at
// (those without incoming flows); and the deploy rules (at least one
// activity, no start or end events inside).
import { feelSource } from './expressions.ts';
import type { Findings } from './findings.ts';
import { taskDefinitionJob } from './jobs.ts';
import { ACTIVITIES, lowerFirst, named } from './labels.ts';
import type { NodeInfo, ProcessRead } from './read-process.ts';
import { bpmnChild } from './xml.ts';

/** Fills `adHoc` (and `job`, for the job worker implementation) on an ad-hoc subprocess; `activatable` waits for linkAdHoc. */
export function readAdHoc(info: NodeInfo, findings: Findings): void {
  const { node, el, zeebe } = info;
  const ref = lowerFirst(named('adHocSubProcess', node.id));
  const feel = (raw: string | undefined, what: string): string | undefined => {
    if (raw === undefined || raw.trim() === '') return undefined;
    const source = feelSource(raw);
    findings.checkFeel(node.id, `the ${what} of ${ref}`, source);
    return source;
  };
  node.adHoc = { activatable: [], cancelRemainingInstances: el.attrs.cancelRemainingInstances !== 'false' };
  const active = feel(zeebe.adHoc?.activeElementsCollection, 'active elements collection');
  if (active !== undefined) node.adHoc.activeElementsCollection = active;
  const completion = feel(bpmnChild(el, 'completionCondition')?.text, 'completion condition');
  if (completion !== undefined) node.adHoc.completionCondition = completion;
  const output = zeebe.adHoc?.outputCollection;
  if (output !== undefined && output.trim() !== '') node.adHoc.outputCollection = output.trim();
  const element = feel(zeebe.adHoc?.outputElement, 'output element');
  if (element !== undefined) node.adHoc.outputElement = element;
  const job = taskDefinitionJob(zeebe);
  if (job !== undefined) node.job = job;
}

/** After flows are linked: the inner elements with no incoming flow, in document order. */
export function linkAdHoc(p: ProcessRead): void {
  for (const info of p.nodes.values()) {
    const adHoc = info.node.adHoc;
    if (adHoc === undefined) continue;
    adHoc.activatable = (info.node.children ?? []).filter((id) => {
      const inner = p.nodes.get(id);
      return inner !== undefined && inner.node.incoming.length === 0 && inner.kind !== 'boundaryEvent' && inner.node.triggeredByEvent !== true;
    });
  }
}

/** Zeebe's constraints on an ad-hoc subprocess. */
export function checkAdHoc(p: ProcessRead, findings: Findings): void {
  for (const info of p.nodes.values()) {
    if (info.kind !== 'adHocSubProcess') continue;
    const subject = named('adHocSubProcess', info.node.id);
    const children = (info.node.children ?? []).map((id) => p.nodes.get(id)).filter((c): c is NodeInfo => c !== undefined);
    if (!children.some((c) => ACTIVITIES.has(c.kind))) findings.problem(info.node.id, `${subject} has no activity inside; it needs at least one.`);
    for (const c of children) {
      if (c.kind !== 'startEvent' && c.kind !== 'endEvent') continue;
      findings.problem(
        c.node.id,
        `${subject} contains ${lowerFirst(named(c.kind, c.node.id))}; an ad-hoc subprocess has no start or end events: ` +
          'its inner elements without incoming flows are activated by its active elements collection (or its job worker), and a path ends where its flows end.',
      );
    }
  }
}
