// bpmn-auto-layout ships no types; this is the one function the diagram uses.
declare module 'bpmn-auto-layout' {
  /** The same BPMN XML with diagram interchange (shapes and edges) laid out. */
  export function layoutProcess(xml: string): Promise<string>;
}
