// Small BPMN documents for the engine/model tests: a process body wrapped in
// definitions that declare BPMN and zeebe, plus helpers to compile and unwrap.
import { expect } from 'vitest';
import { compileBpmn, type CompileOptions } from './compile.ts';
import { readCatalog } from './events.ts';
import { readProcess, type ProcessRead } from './read-process.ts';
import type { CompiledModel, FlowNode, ModelProblem, ProcessModel } from './types.ts';
import { BPMN_NS, parseXml } from './xml.ts';

export const BPMN = 'http://www.omg.org/spec/BPMN/20100524/MODEL';
export const ZEEBE = 'http://camunda.org/schema/zeebe/1.0';

export interface DocOptions {
  processId?: string;
  /** Extra root-level elements (messages, errors, …) after the process. */
  root?: string;
  /** Declare xmlns:zeebe on definitions (default true). */
  zeebe?: boolean;
  executable?: boolean;
}

/** A definitions document with one process whose content is `body` (bpmn: prefix). */
export function bpmnDoc(body: string, options: DocOptions = {}): string {
  const zeebe = options.zeebe === false ? '' : ` xmlns:zeebe="${ZEEBE}"`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="${BPMN}"${zeebe} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_1" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="${options.processId ?? 'p'}" isExecutable="${options.executable === false ? 'false' : 'true'}">
${body}
  </bpmn:process>
${options.root ?? ''}
</bpmn:definitions>`;
}

/** start → [nodes…] → end, chained with flows f1, f2, …; `nodes` are element strings with ids given in `ids`. */
export function chain(ids: string[], nodes: string[]): string {
  const all = ['s', ...ids, 'e'];
  const flows = all.slice(1).map((target, i) => `<bpmn:sequenceFlow id="f${i + 1}" sourceRef="${all[i]}" targetRef="${target}"/>`);
  return ['<bpmn:startEvent id="s"/>', ...nodes, '<bpmn:endEvent id="e"/>', ...flows].join('\n');
}

export function compileOk(xml: string, options?: CompileOptions): CompiledModel {
  const result = compileBpmn(xml, options);
  if (!result.ok) throw new Error(`expected the model to compile, got:\n${result.problems.map((p) => `[${p.elementId ?? '-'}] ${p.message}`).join('\n')}`);
  return result.model;
}

export function problemsOf(xml: string, options?: CompileOptions): ModelProblem[] {
  const result = compileBpmn(xml, options);
  if (result.ok) throw new Error('expected the model to be rejected, but it compiled');
  return result.problems;
}

export function onlyProcess(model: CompiledModel): ProcessModel {
  expect(model.processes).toHaveLength(1);
  return model.processes[0];
}

export function node(xml: string, id: string): FlowNode {
  const el = onlyProcess(compileOk(xml)).elements[id];
  if (!el) throw new Error(`no element ${id}`);
  return el;
}

/** The problems about `elementId`, as messages. */
export function messagesFor(problems: ModelProblem[], elementId: string): string[] {
  return problems.filter((p) => p.elementId === elementId).map((p) => p.message);
}

/**
 * Reads the first process without validating it, for the fields as read
 * (calledElement, loop, calledDecision, timers, boundary events) of elements
 * that need not form a valid process around them.
 */
export function readFirstProcess(xml: string): ProcessRead {
  const parsed = parseXml(xml);
  if (!parsed.ok) throw new Error(parsed.problems[0].message);
  const processEl = parsed.root.children.find((c) => c.ns === BPMN_NS && c.local === 'process');
  if (!processEl) throw new Error('no process');
  return readProcess(processEl, readCatalog(parsed.root));
}

export function readNode(xml: string, id: string): FlowNode {
  const info = readFirstProcess(xml).nodes.get(id);
  if (!info) throw new Error(`no element ${id}`);
  return info.node;
}
