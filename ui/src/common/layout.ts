// A picture for models deployed without diagram interchange (written by
// hand or generated rather than drawn in a modeler): bpmn-auto-layout lays
// them out. It follows each node's <incoming>/<outgoing> references, which
// such models often leave out (they are redundant with the flows'
// sourceRef/targetRef), so those are filled in first or no flow would be
// drawn.

export function hasDiagram(xml: string): boolean {
  return /<([a-zA-Z0-9_-]+:)?BPMNDiagram[\s>]/.test(xml);
}

/** The same model with every node's incoming and outgoing flows listed. */
export function withFlowReferences(xml: string): string {
  const document = new DOMParser().parseFromString(xml, 'application/xml');
  if (document.getElementsByTagName('parsererror').length > 0) return xml;
  const byId = new Map<string, Element>();
  for (const element of Array.from(document.getElementsByTagName('*'))) {
    const id = element.getAttribute('id');
    if (id) byId.set(id, element);
  }
  for (const flow of Array.from(document.getElementsByTagNameNS(document.documentElement.namespaceURI, 'sequenceFlow'))) {
    const id = flow.getAttribute('id');
    if (!id) continue;
    for (const [attribute, child] of [
      ['sourceRef', 'outgoing'],
      ['targetRef', 'incoming'],
    ] as const) {
      const node = byId.get(flow.getAttribute(attribute) ?? '');
      if (!node) continue;
      const listed = Array.from(node.children).some((c) => c.localName === child && c.textContent?.trim() === id);
      if (listed) continue;
      const reference = document.createElementNS(flow.namespaceURI, flow.prefix ? `${flow.prefix}:${child}` : child);
      reference.textContent = id;
      node.append(reference);
    }
  }
  return new XMLSerializer().serializeToString(document);
}

export async function drawable(xml: string): Promise<string> {
  if (hasDiagram(xml)) return xml;
  const { layoutProcess } = await import('bpmn-auto-layout');
  return layoutProcess(withFlowReferences(xml));
}
