// Camunda 8 (zeebe) extension elements inside a BPMN element's
// extensionElements, read into plain records with the attribute text as
// written. Interpretation (FEEL or literal, defaults) happens where the values
// are used. Extensions Orca does not act on (userTask, formDefinition,
// assignmentDefinition, taskSchedule, executionListeners, properties, …) are
// simply not read.
import { BPMN_NS, ZEEBE_NS, type XmlElement } from './xml.ts';

export interface ZeebeMapping {
  source?: string;
  target?: string;
}

export interface ZeebeExtensions {
  taskDefinition?: { type?: string; retries?: string };
  inputs: ZeebeMapping[];
  outputs: ZeebeMapping[];
  headers: { key?: string; value?: string }[];
  calledElement?: { processId?: string; propagateAllChildVariables?: string; propagateAllParentVariables?: string };
  calledDecision?: { decisionId?: string; resultVariable?: string };
  script?: { expression?: string; resultVariable?: string };
  subscription?: { correlationKey?: string };
  loopCharacteristics?: {
    inputCollection?: string;
    inputElement?: string;
    outputCollection?: string;
    outputElement?: string;
    completionCondition?: string;
  };
  adHoc?: { activeElementsCollection?: string; outputCollection?: string; outputElement?: string };
}

const EMPTY: readonly XmlElement[] = [];

/** The zeebe-namespace children of `el`'s bpmn:extensionElements. */
export function zeebeElements(el: XmlElement): readonly XmlElement[] {
  for (const c of el.children) {
    if (c.ns === BPMN_NS && c.local === 'extensionElements') return c.children.filter((z) => z.ns === ZEEBE_NS);
  }
  return EMPTY;
}

export function readZeebe(el: XmlElement): ZeebeExtensions {
  const ext: ZeebeExtensions = { inputs: [], outputs: [], headers: [] };
  for (const z of zeebeElements(el)) {
    const a = z.attrs;
    switch (z.local) {
      case 'taskDefinition':
        ext.taskDefinition = { type: a.type, retries: a.retries };
        break;
      case 'ioMapping':
        for (const m of z.children) {
          if (m.ns !== ZEEBE_NS) continue;
          if (m.local === 'input') ext.inputs.push({ source: m.attrs.source, target: m.attrs.target });
          else if (m.local === 'output') ext.outputs.push({ source: m.attrs.source, target: m.attrs.target });
        }
        break;
      case 'taskHeaders':
        for (const h of z.children) if (h.ns === ZEEBE_NS && h.local === 'header') ext.headers.push({ key: h.attrs.key, value: h.attrs.value });
        break;
      case 'calledElement':
        ext.calledElement = {
          processId: a.processId,
          propagateAllChildVariables: a.propagateAllChildVariables,
          propagateAllParentVariables: a.propagateAllParentVariables,
        };
        break;
      case 'calledDecision':
        ext.calledDecision = { decisionId: a.decisionId, resultVariable: a.resultVariable };
        break;
      case 'script':
        ext.script = { expression: a.expression, resultVariable: a.resultVariable };
        break;
      case 'subscription':
        ext.subscription = { correlationKey: a.correlationKey };
        break;
      case 'loopCharacteristics':
        ext.loopCharacteristics = {
          inputCollection: a.inputCollection,
          inputElement: a.inputElement,
          outputCollection: a.outputCollection,
          outputElement: a.outputElement,
          completionCondition: a.completionCondition,
        };
        break;
      case 'adHoc':
        ext.adHoc = { activeElementsCollection: a.activeElementsCollection, outputCollection: a.outputCollection, outputElement: a.outputElement };
        break;
      default:
        // Accepted and ignored: userTask, formDefinition, assignmentDefinition,
        // taskSchedule, executionListeners, properties, userTaskForm, …
        break;
    }
  }
  return ext;
}
