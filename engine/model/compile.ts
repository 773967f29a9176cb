// The compiler's front door: BPMN 2.0 XML in, a CompileResult out, never an
// exception. Order of work: cheap text guards and XML parsing (xml.ts), the
// definitions catalog, each process, validation of the executable ones, FEEL
// syntax, and only when nothing is wrong, the CompiledModel for engine/runtime.
import { linkAdHoc } from './ad-hoc.ts';
import { dictionary } from './dict.ts';
import { readCatalog } from './events.ts';
import { Findings } from './findings.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ELEMENTS, type Limits } from './guards.ts';
import { fillUpstream } from './reachability.ts';
import { readProcess, type Lane, type ProcessRead } from './read-process.ts';
import { camundaDifferences } from './camunda-differences.ts';
import type { CompiledModel, CompileResult, FlowNode, ModelProblem, ModelWarning, ProcessModel, SequenceFlow } from './types.ts';
import { checkFeel, checkZeebeDeclaration, validateProcess, type ProcessIndex } from './validate.ts';
import { BPMN_NS, BPMNDI_NS, parseXml, type XmlElement } from './xml.ts';

export interface CompileOptions {
  /** Largest accepted document in bytes (UTF-8); default 10 MiB. */
  maxBytes?: number;
  /** Most flow nodes plus sequence flows in one document; default 20,000. */
  maxElements?: number;
}

function limitsOf(options: CompileOptions | undefined): Limits {
  const positive = (n: number | undefined, fallback: number): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : fallback);
  return { maxBytes: positive(options?.maxBytes, DEFAULT_MAX_BYTES), maxElements: positive(options?.maxElements, DEFAULT_MAX_ELEMENTS) };
}

function fail(problems: ModelProblem[]): CompileResult {
  return { ok: false, problems };
}

function rootProblem(root: XmlElement): ModelProblem | undefined {
  if (root.ns === BPMN_NS && root.local === 'definitions') return undefined;
  if (root.local === 'definitions') {
    return {
      message: `The root element <${root.qname}> is in namespace '${root.ns || '(none)'}', not BPMN 2.0: declare xmlns:bpmn="${BPMN_NS}" and use <bpmn:definitions>.`,
    };
  }
  return { message: `This is not a BPMN 2.0 model: the root element is <${root.qname}>, expected <definitions> in namespace ${BPMN_NS}.` };
}

function* mapValues<A, B>(map: Map<string, A>, fn: (value: A) => B): Generator<[string, B]> {
  for (const [key, value] of map) yield [key, fn(value)];
}

function toProcessModel(p: ProcessRead): ProcessModel {
  const elements: Record<string, FlowNode> = dictionary<FlowNode>(mapValues(p.nodes, (info) => info.node));
  const flows: Record<string, SequenceFlow> = dictionary<SequenceFlow>(mapValues(p.flows, (info) => info.flow));
  const model: ProcessModel = { id: p.id, isExecutable: true, elements, flows, startEvents: p.startEvents, eventSubProcesses: p.eventSubProcesses };
  if (p.name !== undefined) model.name = p.name;
  const noneStart = p.startEvents.find((id) => p.nodes.get(id)?.eventKind === 'none');
  if (noneStart !== undefined) model.noneStartEvent = noneStart;
  return model;
}

function compileParsed(root: XmlElement, limits: Limits): CompileResult {
  const bad = rootProblem(root);
  if (bad) return fail([bad]);

  const findings = new Findings();
  const catalog = readCatalog(root);
  const processes: ProcessRead[] = [];
  const participants: CompiledModel['participants'] = [];
  const diagrams: XmlElement[] = [];

  for (const el of root.children) {
    if (el.ns === BPMNDI_NS && el.local === 'BPMNDiagram') diagrams.push(el);
    if (el.ns !== BPMN_NS) continue;
    if (el.local === 'process') {
      if (el.attrs.id === undefined || el.attrs.id === '') {
        findings.problem(undefined, 'A process has no id; every process needs one (it becomes the bpmnProcessId).');
        continue;
      }
      processes.push(readProcess(el, catalog));
    } else if (el.local === 'collaboration') {
      for (const p of el.children) {
        if (p.ns !== BPMN_NS || p.local !== 'participant') continue;
        const participant: CompiledModel['participants'][number] = { id: p.attrs.id ?? '' };
        if (p.attrs.name !== undefined && p.attrs.name !== '') participant.name = p.attrs.name;
        if (p.attrs.processRef !== undefined && p.attrs.processRef !== '') participant.processRef = p.attrs.processRef;
        participants.push(participant);
      }
    }
  }

  let elementCount = 0;
  for (const p of processes) elementCount += p.nodes.size + p.flows.size + p.duplicateIds.length;
  if (elementCount > limits.maxElements) {
    return fail([
      {
        message: `The model has ${elementCount.toLocaleString('en-US')} flow elements and sequence flows, more than the ${limits.maxElements.toLocaleString('en-US')} Orca accepts in one model; split it into smaller processes.`,
      },
    ]);
  }

  // Ids are document-wide (xsd:ID): the same id in two processes is a conflict too.
  const index: ProcessIndex = new Map();
  const processIds = new Set<string>();
  for (const p of processes) {
    if (processIds.has(p.id)) findings.problem(p.id, `Two processes have the id '${p.id}'; process ids must be unique.`);
    processIds.add(p.id);
    for (const id of [...p.nodes.keys(), ...p.flows.keys()]) {
      const other = index.get(id);
      if (other !== undefined && other !== p.id)
        findings.problem(id, `The id '${id}' is used in both process '${other}' and process '${p.id}'; ids must be unique in a file.`);
      else index.set(id, p.id);
    }
  }

  const executable = processes.filter((p) => p.isExecutable);
  const warnings: ModelWarning[] = [];
  if (executable.length === 0) {
    const names = processes.map((p) => `'${p.id}'`).join(', ');
    findings.problem(
      undefined,
      processes.length === 0
        ? 'The model contains no process.'
        : `The model has no executable process: set isExecutable="true" on the process Orca should run (found ${names}).`,
    );
  }
  for (const p of processes) {
    if (!p.isExecutable) {
      if (executable.length > 0)
        warnings.push({
          elementId: p.id,
          code: 'PROCESS_NOT_EXECUTABLE',
          message: `Process '${p.id}' is not executable (isExecutable is not "true") and is ignored.`,
        });
      continue;
    }
    validateProcess(p, index, p.findings);
    findings.absorb(p.findings);
  }
  checkZeebeDeclaration(root, findings);
  checkFeel(findings);
  if (findings.problems.length > 0) return fail(findings.problems);

  for (const p of executable) {
    fillUpstream(p);
    linkAdHoc(p);
    warnings.push(...camundaDifferences(p));
  }
  const lanes: Lane[] = processes.flatMap((p) => p.lanes);
  const model: CompiledModel = {
    processes: executable.map(toProcessModel),
    nonExecutableProcesses: processes.filter((p) => !p.isExecutable).map((p) => p.id),
    lanes,
    participants,
    warnings,
  };
  if (diagrams.length > 0) model.diagram = diagrams;
  return { ok: true, model };
}

/**
 * Compiles BPMN 2.0 XML into a validated model. Never throws: every way a
 * document can be wrong comes back as `{ ok: false, problems }`, with all
 * problems found, not only the first.
 */
export function compileBpmn(xml: string, options?: CompileOptions): CompileResult {
  try {
    const limits = limitsOf(options);
    const parsed = parseXml(xml, limits);
    if (!parsed.ok) return fail(parsed.problems);
    return compileParsed(parsed.root, limits);
  } catch (err) {
    // A bug, not bad input; still an answer rather than a crash.
    const reason = err instanceof Error ? err.message : String(err);
    return fail([{ message: `Orca could not compile the model because of an internal error (${reason}); please report it with the model attached.` }]);
  }
}
