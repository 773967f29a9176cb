// The BPMN diagram (bpmn-js NavigatedViewer: pan with the mouse, zoom with
// the wheel or keyboard) marked by state. Each element's SVG group, which
// bpmn-js gives `data-element-id`, gets the class orca-incident, orca-active
// or orca-completed; a badge per element says its counts in words; taken
// sequence flows get orca-taken. An incident inside a collapsed subprocess
// would be invisible on the top plane, so the subprocess is marked too and
// a hint offers to open it. The bpmn.io watermark is left as bpmn-js draws
// it (its licence asks for that). A model deployed without diagram
// interchange is laid out first (layout.ts).
import 'bpmn-js/dist/assets/diagram-js.css';
import 'bpmn-js/dist/assets/bpmn-js.css';
import NavigatedViewerModule from 'bpmn-js/lib/NavigatedViewer.js';
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { drawable } from './layout.ts';

export interface ElementCounts {
  elementId: string;
  active: number;
  incidents: number;
  completed: number;
  canceled: number;
}

export interface DiagramMarks {
  elements: ElementCounts[];
  sequenceFlows?: { elementId: string; taken: number }[];
}

interface Shape {
  id: string;
  parent?: Shape;
  businessObject?: { id: string; name?: string; $parent?: { id: string } };
}
interface Canvas {
  zoom(level: 'fit-viewport'): void;
  addMarker(element: string | Shape, marker: string): void;
  removeMarker(element: string | Shape, marker: string): void;
  getRootElement(): Shape;
  setRootElement(root: Shape): void;
}
interface Registry {
  get(id: string): Shape | undefined;
  getAll(): Shape[];
}
interface Overlays {
  add(element: string, type: string, overlay: { position: { bottom?: number; right?: number; top?: number; left?: number }; html: HTMLElement }): string;
  remove(filter: { type: string }): void;
}

interface Viewer {
  importXML(xml: string): Promise<unknown>;
  get(service: string): unknown;
  destroy(): void;
}
// bpmn-js is an ES module without "type": "module", so TypeScript (NodeNext) misreads its default export; Vite does not.
const NavigatedViewer = NavigatedViewerModule as unknown as new (options: { container: HTMLElement }) => Viewer;

export const STATE_CLASSES = ['orca-incident', 'orca-active', 'orca-completed', 'orca-canceled', 'orca-taken', 'orca-selected'];

function stateClass(counts: ElementCounts): string | null {
  if (counts.incidents > 0) return 'orca-incident';
  if (counts.active > 0) return 'orca-active';
  if (counts.completed > 0) return 'orca-completed';
  if (counts.canceled > 0) return 'orca-canceled';
  return null;
}

function rootOf(shape: Shape): Shape {
  let at = shape;
  while (at.parent) at = at.parent;
  return at;
}

function badge(counts: ElementCounts): HTMLElement | null {
  const parts: [number, string, string][] = [
    [counts.active, 'active', 'active'],
    [counts.incidents, counts.incidents === 1 ? 'incident' : 'incidents', 'incident'],
    [counts.completed, 'completed', 'completed'],
    [counts.canceled, 'canceled', 'canceled'],
  ];
  const shown = parts.filter(([n]) => n > 0);
  if (shown.length === 0) return null;
  const box = document.createElement('span');
  box.className = 'orca-badges';
  for (const [n, word, kind] of shown) {
    const part = document.createElement('span');
    part.className = `orca-badge orca-badge-${kind}`;
    part.textContent = `${n} ${word}`;
    box.append(part);
  }
  return box;
}

export interface Hint {
  subprocessId: string;
  subprocessName: string;
  elementId: string;
}

export function Diagram(props: { xml: string | undefined; marks: DiagramMarks | undefined; label: string; selected?: string }) {
  const container = useRef<HTMLDivElement>(null);
  const viewer = useRef<Viewer | null>(null);
  const [imported, setImported] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [hints, setHints] = useState<Hint[]>([]);

  useEffect(() => {
    const created = new NavigatedViewer({ container: container.current! });
    viewer.current = created;
    return () => created.destroy();
  }, []);

  useEffect(() => {
    if (!props.xml || !viewer.current) return;
    let stale = false;
    const xml = props.xml;
    drawable(xml)
      .then((drawn) => (stale ? undefined : viewer.current!.importXML(drawn)))
      .then(() => {
        if (stale) return;
        (viewer.current!.get('canvas') as Canvas).zoom('fit-viewport');
        setError(null);
        setImported(props.xml!);
      })
      .catch((failure: Error) => !stale && setError(`The diagram could not be drawn: ${failure.message}`));
    return () => {
      stale = true;
    };
  }, [props.xml]);

  useEffect(() => {
    if (!imported || !viewer.current) return;
    const canvas = viewer.current.get('canvas') as Canvas;
    const registry = viewer.current.get('elementRegistry') as Registry;
    const overlays = viewer.current.get('overlays') as Overlays;
    for (const shape of registry.getAll()) for (const marker of STATE_CLASSES) canvas.removeMarker(shape, marker);
    overlays.remove({ type: 'orca-counts' });
    const found: Hint[] = [];
    const visibleRoot = canvas.getRootElement();
    for (const counts of props.marks?.elements ?? []) {
      const shape = registry.get(counts.elementId);
      const marker = stateClass(counts);
      if (!shape || !marker) continue;
      canvas.addMarker(shape, marker);
      const box = badge(counts);
      if (box) overlays.add(shape.id, 'orca-counts', { position: { bottom: -2, left: 0 }, html: box });
      // An incident on another plane (inside a collapsed subprocess): mark the subprocess where it shows.
      if (counts.incidents > 0 && rootOf(shape) !== visibleRoot) {
        let parent = shape.businessObject?.$parent;
        while (parent) {
          const holder = registry.get(parent.id);
          if (holder && rootOf(holder) === visibleRoot) {
            canvas.addMarker(holder, 'orca-incident');
            found.push({ subprocessId: holder.id, subprocessName: holder.businessObject?.name || holder.id, elementId: counts.elementId });
            break;
          }
          parent = (parent as { $parent?: { id: string } }).$parent;
        }
      }
    }
    for (const flow of props.marks?.sequenceFlows ?? []) if (flow.taken > 0 && registry.get(flow.elementId)) canvas.addMarker(flow.elementId, 'orca-taken');
    if (props.selected && registry.get(props.selected)) canvas.addMarker(props.selected, 'orca-selected');
    setHints(found);
  }, [imported, props.marks, props.selected]);

  const open = (hint: Hint) => {
    const canvas = viewer.current!.get('canvas') as Canvas;
    const plane = (viewer.current!.get('elementRegistry') as Registry).get(`${hint.subprocessId}_plane`);
    if (plane) canvas.setRootElement(plane);
  };

  return html`<figure class="diagram">
    <div class="diagram-canvas" ref=${container} data-testid="diagram"></div>
    <figcaption>${props.label}</figcaption>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${
      hints.length > 0
        ? html`<div class="hints">
            ${hints.map(
              (hint) =>
                html`<p class="hint" role="note">
                  An incident sits at <code>${hint.elementId}</code> inside the collapsed subprocess “${hint.subprocessName}”.
                  <button type="button" onClick=${() => open(hint)}>Open subprocess ${hint.subprocessName}</button>
                </p>`,
            )}
          </div>`
        : null
    }
  </figure>`;
}
