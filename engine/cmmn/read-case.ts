// Reads one <case> element of a CMMN 1.1 document into plan items and
// sentries, noting every problem in Findings: plan items flattened with their
// stage, definitions resolved, item control rules read (the plan item's own
// itemControl over its definition's defaultControl, CMMN 1.1 PlanItemControl),
// conditions turned into FEEL (JUEL's trivial forms rewritten, juel.ts).
// What Orca does not run is named and refused; vendor extensions are skipped.
import { Findings } from '../model/findings.ts';
import type { ModelWarning } from '../model/types.ts';
import { parseTimer } from '../timer/index.ts';
import type { XmlElement } from '../xml/element.ts';
import { isJuel, juelToFeel } from './juel.ts';
import type { OnPart, PlanItem, PlanItemType, Rule, Sentry, StandardEvent } from './types.ts';

export const CMMN11_NS = 'http://www.omg.org/spec/CMMN/20151109/MODEL';
/** The namespace of the CMMN 1.1 beta, which cmmn-js's older files still use: read as CMMN 1.1. */
export const CMMN11_BETA_NS = 'http://www.omg.org/spec/CMMN/20150516/MODEL';
const CMMN_NAMESPACES = new Set([CMMN11_NS, CMMN11_BETA_NS]);

const DEFINITION_KINDS: Record<string, PlanItemType> = {
  stage: 'stage',
  humanTask: 'humanTask',
  processTask: 'processTask',
  caseTask: 'caseTask',
  task: 'task',
  milestone: 'milestone',
  userEventListener: 'userEventListener',
  timerEventListener: 'timerEventListener',
};

/** Named and refused: parts of CMMN 1.1 Orca does not run yet. */
const UNSUPPORTED: Record<string, string> = {
  planningTable: 'planning tables (discretionary items) are not supported',
  discretionaryItem: 'discretionary items are not supported',
  decisionTask: 'decision tasks are not supported; call the decision from a process task instead',
  planFragment: 'plan fragments are not supported',
  eventListener: 'generic event listeners are not supported; use a user or timer event listener',
};

/** Standard events Orca never raises (it has no suspension); on-parts on them are dropped with a warning. */
const NEVER_RAISED = new Set(['suspend', 'resume', 'parentSuspend', 'parentResume', 'close', 'addChild', 'addReference']);
const RAISED = new Set<StandardEvent>(['create', 'enable', 'disable', 'reenable', 'start', 'manualStart', 'complete', 'terminate', 'exit', 'occur', 'fault']);

export interface ReadCase {
  id: string;
  name?: string;
  rootId: string;
  planItems: Record<string, PlanItem>;
  sentries: Record<string, Sentry>;
  /** Sentry id → the stage plan item id it is declared in. */
  sentryStage: Record<string, string>;
  caseFileItems: string[];
}

export class CaseReader {
  readonly findings = new Findings();
  readonly warnings: ModelWarning[] = [];
  private readonly planItems: Record<string, PlanItem> = Object.create(null) as Record<string, PlanItem>;
  private readonly sentries: Record<string, Sentry> = Object.create(null) as Record<string, Sentry>;
  private readonly sentryStage: Record<string, string> = Object.create(null) as Record<string, string>;
  /** Sentries made only of case file item on-parts: dropped, so the criteria naming them are too. */
  private readonly ignoredSentries = new Set<string>();
  /** Every plan item definition of the case, by id. */
  private readonly definitions = new Map<string, XmlElement>();

  constructor(private readonly processRefs: ReadonlyMap<string, string>) {}

  read(caseElement: XmlElement): ReadCase | undefined {
    const id = caseElement.attrs.id;
    if (!id) {
      this.findings.problem(undefined, `a <case>${caseElement.attrs.name ? ` named '${caseElement.attrs.name}'` : ''} has no id`);
      return undefined;
    }
    const caseFileItems: string[] = [];
    let planModel: XmlElement | undefined;
    for (const child of cmmnChildren(caseElement)) {
      if (child.local === 'casePlanModel') planModel = child;
      else if (child.local === 'caseFileModel') for (const item of cmmnChildren(child)) collectCaseFileItem(item, caseFileItems);
    }
    if (planModel === undefined) {
      this.findings.problem(id, `case '${id}' has no casePlanModel, so there is nothing to run`);
      return undefined;
    }
    collectDefinitions(planModel, this.definitions);
    const rootId = planModel.attrs.id || `${id}_casePlanModel`;
    this.planItems[rootId] = this.item(rootId, planModel.attrs.name, rootId, 'stage', undefined, planModel, planModel);
    this.planItems[rootId].autoComplete = planModel.attrs.autoComplete === 'true';
    this.readStage(planModel, rootId);
    // The case plan model's own exit criteria (CMMN 1.1: a case plan model may have exit criteria only).
    for (const child of cmmnChildren(planModel)) {
      if (child.local === 'exitCriterion') this.criterion(child, this.planItems[rootId].exit, rootId);
      if (child.local === 'entryCriterion')
        this.findings.problem(rootId, `the case plan model '${rootId}' cannot have an entry criterion (CMMN 1.1 allows it exit criteria only): remove it`);
    }
    this.pruneIgnored();
    return { id, name: caseElement.attrs.name, rootId, planItems: this.planItems, sentries: this.sentries, sentryStage: this.sentryStage, caseFileItems };
  }

  private readonly unsupportedIds = new Set<string>();

  private unsupported(element: XmlElement, fallbackId: string): void {
    if (element.attrs.id) this.unsupportedIds.add(element.attrs.id);
    this.findings.problem(element.attrs.id || fallbackId, `<${element.local}>: ${UNSUPPORTED[element.local]}`);
  }

  private warn(elementId: string | undefined, code: string, message: string): void {
    this.warnings.push(elementId === undefined ? { code, message } : { elementId, code, message });
  }

  /** Reads the plan items, sentries and definitions declared directly in a stage or the case plan model. */
  private readStage(stage: XmlElement, stageId: string): void {
    const definitions = new Map<string, XmlElement>();
    const planItemElements: XmlElement[] = [];
    for (const child of cmmnChildren(stage)) {
      if (child.local in DEFINITION_KINDS) {
        if (child.attrs.id) definitions.set(child.attrs.id, child);
        else this.findings.problem(stageId, `a <${child.local}> in '${stageId}' has no id`);
      } else if (child.local === 'planItem') planItemElements.push(child);
      else if (child.local === 'sentry') this.readSentry(child, stageId);
      else if (child.local in UNSUPPORTED) this.unsupported(child, stageId);
    }
    const children: string[] = [];
    for (const element of planItemElements) {
      const id = element.attrs.id;
      if (!id) {
        this.findings.problem(stageId, `a planItem in '${stageId}' has no id`);
        continue;
      }
      if (id in this.planItems) {
        this.findings.problem(id, `the plan item id '${id}' is used more than once`);
        continue;
      }
      const ref = element.attrs.definitionRef;
      // cmmn-js declares every definition in the case plan model, whatever stage uses it.
      const definition = ref === undefined ? undefined : (definitions.get(ref) ?? this.definitions.get(ref));
      if (definition === undefined) {
        // A plan item of an unsupported kind was already named as such.
        if (ref !== undefined && this.unsupportedIds.has(ref)) continue;
        this.findings.problem(id, `plan item '${id}' refers to definition '${ref ?? ''}', which is not declared in the case`);
        continue;
      }
      const type = DEFINITION_KINDS[definition.local];
      const item = this.item(id, element.attrs.name ?? definition.attrs.name, definition.attrs.id, type, stageId, element, definition);
      this.planItems[id] = item;
      children.push(id);
      for (const child of cmmnChildren(element)) {
        if (child.local === 'entryCriterion') this.criterion(child, item.entry, id);
        else if (child.local === 'exitCriterion') this.criterion(child, item.exit, id);
      }
      if (element.attrs.entryCriteriaRefs !== undefined || element.attrs.exitCriteriaRefs !== undefined) {
        this.findings.problem(
          id,
          'entryCriteriaRefs / exitCriteriaRefs are CMMN 1.0 attributes: write <entryCriterion sentryRef="…"/> / <exitCriterion sentryRef="…"/> inside the plan item',
        );
      }
      if (item.entry.length > 0 && (type === 'userEventListener' || type === 'timerEventListener')) {
        this.findings.problem(id, `event listener '${id}' cannot have entry criteria (CMMN 1.1 allows event listeners none)`);
      }
      if (type === 'stage') this.readStage(definition, id);
    }
    this.planItems[stageId].children = children;
  }

  private item(
    id: string,
    name: string | undefined,
    definitionId: string,
    type: PlanItemType,
    parentId: string | undefined,
    element: XmlElement,
    definition: XmlElement,
  ): PlanItem {
    const item: PlanItem = {
      id,
      definitionId,
      type,
      entry: [],
      exit: [],
      required: this.rule(element, definition, 'requiredRule', id),
      manualActivation: type === 'stage' || type.endsWith('Task') || type === 'task' ? this.rule(element, definition, 'manualActivationRule', id) : false,
      repetition: this.rule(element, definition, 'repetitionRule', id),
      isBlocking: definition.attrs.isBlocking !== 'false',
    };
    if (name !== undefined) item.name = name;
    if (parentId !== undefined) item.parentId = parentId;
    if (type === 'stage' && parentId !== undefined) item.autoComplete = definition.attrs.autoComplete === 'true';
    if (type === 'processTask') this.processTask(item, definition);
    if (type === 'caseTask') {
      const ref = definition.attrs.caseRef;
      if (ref) item.caseRef = ref;
      else this.findings.problem(id, `case task '${definition.attrs.id}' has no caseRef: name the case it starts`);
    }
    if (type === 'timerEventListener') this.timer(item, definition);
    // A stage's own content is read by readStage.
    if (type !== 'stage') for (const child of cmmnChildren(definition)) if (child.local in UNSUPPORTED) this.unsupported(child, id);
    return item;
  }

  private processTask(item: PlanItem, definition: XmlElement): void {
    let ref: string | undefined = definition.attrs.processRef;
    // CMMN 1.1 refers to a <process externalRef="…"/> of the definitions; Camunda 7 names the BPMN process directly.
    if (ref !== undefined) ref = this.processRefs.get(ref) ?? ref;
    if (!ref) {
      const expr = cmmnChildren(definition).find((c) => c.local === 'processRefExpression');
      this.findings.problem(
        item.id,
        expr
          ? `process task '${definition.attrs.id}' chooses its process by an expression, which Orca does not support: set processRef`
          : `process task '${definition.attrs.id}' has no processRef: name the BPMN process it starts`,
      );
      return;
    }
    item.processRef = ref;
  }

  private timer(item: PlanItem, definition: XmlElement): void {
    const children = cmmnChildren(definition);
    const trigger = children.find((c) => c.local === 'planItemStartTrigger' || c.local === 'caseFileItemStartTrigger');
    if (trigger !== undefined)
      this.findings.problem(
        item.id,
        `timer event listener '${definition.attrs.id}': <${trigger.local}> is not supported; the timer starts when the listener is created`,
      );
    const expression = children.find((c) => c.local === 'timerExpression');
    const text = expression === undefined ? '' : conditionText(expression);
    if (text === '') {
      this.findings.problem(
        item.id,
        `timer event listener '${definition.attrs.id}' has no timerExpression: give an ISO 8601 duration such as PT1H or a date-time`,
      );
      return;
    }
    const inner = isJuel(text)
      ? text
          .trim()
          .slice(2, -1)
          .trim()
          .replace(/^'(.*)'$/, '$1')
      : text;
    const parsed = /^[Pp]/.test(inner) ? parseTimer('duration', inner) : /^R/.test(inner) ? parseTimer('cycle', inner) : parseTimer('date', inner);
    if (parsed.ok) item.timer = parsed.schedule;
    else this.findings.problem(item.id, `timer event listener '${definition.attrs.id}': ${parsed.error}`);
  }

  /** The rule on the plan item's itemControl, else on its definition's defaultControl (PlanItemControl); absent → false. */
  private rule(element: XmlElement, definition: XmlElement, name: string, id: string): Rule {
    for (const control of [cmmnChild(element, 'itemControl'), cmmnChild(definition, 'defaultControl')]) {
      const rule = control === undefined ? undefined : cmmnChild(control, name);
      if (rule === undefined) continue;
      const condition = cmmnChild(rule, 'condition');
      // A rule without a condition always applies (CMMN 1.1, PlanItemControl).
      if (condition === undefined) return true;
      return this.condition(conditionText(condition), rule.attrs.id || id, `the ${name} of '${id}'`) ?? false;
    }
    return false;
  }

  /** FEEL for a condition: constant true/false folded, JUEL rewritten, FEEL queued for its syntax check. */
  private condition(text: string, elementId: string, what: string): Rule | undefined {
    let source = text.trim();
    if (source === '') {
      this.findings.problem(elementId, `${what} has an empty condition`);
      return undefined;
    }
    if (isJuel(source)) {
      const feel = juelToFeel(source);
      if (!feel.ok) {
        this.findings.problem(elementId, `${what}: ${feel.error}`);
        return undefined;
      }
      source = feel.feel;
    } else if (source.startsWith('=')) source = source.slice(1).trim();
    if (source === 'true') return true;
    if (source === 'false') return false;
    this.findings.checkFeel(elementId, what, source);
    return { condition: source };
  }

  private readSentry(element: XmlElement, stageId: string): void {
    const id = element.attrs.id;
    if (!id) {
      this.findings.problem(stageId, `a sentry in '${stageId}' has no id`);
      return;
    }
    if (id in this.sentries) {
      this.findings.problem(id, `the sentry id '${id}' is used more than once`);
      return;
    }
    const onParts: OnPart[] = [];
    let ifPart: string | undefined;
    let caseFileParts = 0;
    for (const child of cmmnChildren(element)) {
      if (child.local === 'planItemOnPart') {
        const sourceId = child.attrs.sourceRef;
        const event = cmmnChild(child, 'standardEvent')?.text ?? '';
        if (!sourceId) this.findings.problem(id, `an on-part of sentry '${id}' has no sourceRef: name the plan item it listens to`);
        else if (NEVER_RAISED.has(event)) {
          this.warn(
            id,
            'CMMN_EVENT_NEVER_RAISED',
            `sentry '${id}' listens for '${event}' of '${sourceId}', which Orca never raises (it has no suspension); that on-part never happens`,
          );
          onParts.push({ sourceId, event: 'fault' });
        } else if (!RAISED.has(event as StandardEvent)) {
          this.findings.problem(
            id,
            `sentry '${id}' listens for '${event}', which is not a standard event of a plan item (create, enable, disable, reenable, start, manualStart, complete, terminate, exit, occur, fault)`,
          );
        } else onParts.push({ sourceId, event: event as StandardEvent });
        if (cmmnChild(child, 'sentryRef') !== undefined || child.attrs.exitCriterionRef !== undefined || child.attrs.sentryRef !== undefined) {
          this.warn(
            id,
            'CMMN_ON_PART_CRITERION_IGNORED',
            `the exitCriterionRef of an on-part of sentry '${id}' is ignored: the on-part fires on any '${event}' of '${sourceId ?? ''}'`,
          );
        }
      } else if (child.local === 'caseFileItemOnPart') caseFileParts++;
      else if (child.local === 'ifPart') {
        const condition = cmmnChild(child, 'condition');
        const rule = this.condition(condition === undefined ? '' : conditionText(condition), id, `the if-part of sentry '${id}'`);
        if (rule === false) ifPart = 'false';
        else if (rule !== undefined && rule !== true) ifPart = rule.condition;
      }
    }
    if (caseFileParts > 0) {
      this.warn(
        id,
        'CMMN_CASE_FILE_ON_PART_IGNORED',
        `sentry '${id}' has ${caseFileParts === 1 ? 'a case file item on-part' : `${caseFileParts} case file item on-parts`}, which Orca ignores (as Camunda 7 does)` +
          (onParts.length === 0 && ifPart === undefined ? '; the criteria that use it are dropped' : ''),
      );
      if (onParts.length === 0 && ifPart === undefined) {
        this.ignoredSentries.add(id);
        return;
      }
    }
    const sentry: Sentry = { id, onParts };
    if (ifPart !== undefined) sentry.ifPart = ifPart;
    this.sentries[id] = sentry;
    this.sentryStage[id] = stageId;
  }

  private criterion(element: XmlElement, into: string[], itemId: string): void {
    const ref = element.attrs.sentryRef;
    if (!ref) {
      this.findings.problem(element.attrs.id || itemId, `a criterion of '${itemId}' has no sentryRef: name the sentry it waits for`);
      return;
    }
    into.push(ref);
  }

  private pruneIgnored(): void {
    for (const item of Object.values(this.planItems)) {
      item.entry = item.entry.filter((s) => !this.ignoredSentries.has(s));
      item.exit = item.exit.filter((s) => !this.ignoredSentries.has(s));
    }
  }
}

function collectDefinitions(stage: XmlElement, into: Map<string, XmlElement>): void {
  for (const child of cmmnChildren(stage)) {
    if (!(child.local in DEFINITION_KINDS)) continue;
    if (child.attrs.id && !into.has(child.attrs.id)) into.set(child.attrs.id, child);
    if (child.local === 'stage') collectDefinitions(child, into);
  }
}

function collectCaseFileItem(element: XmlElement, into: string[]): void {
  if (element.local !== 'caseFileItem') return;
  const name = element.attrs.name ?? element.attrs.id;
  if (name) into.push(name);
  for (const child of cmmnChildren(element)) if (child.local === 'children') for (const inner of cmmnChildren(child)) collectCaseFileItem(inner, into);
}

/** Children in the CMMN namespace: vendor extensions (camunda:, flowable:) and extensionElements are skipped. */
export function cmmnChildren(element: XmlElement): XmlElement[] {
  return element.children.filter((c) => CMMN_NAMESPACES.has(c.ns) && c.local !== 'extensionElements' && c.local !== 'documentation');
}

function cmmnChild(element: XmlElement, local: string): XmlElement | undefined {
  return element.children.find((c) => CMMN_NAMESPACES.has(c.ns) && c.local === local);
}

/** A condition's text: its own, or that of a <body> inside it (cmmn-js writes both). */
function conditionText(element: XmlElement): string {
  return element.text || (cmmnChild(element, 'body')?.text ?? '');
}
