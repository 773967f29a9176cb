// The element tree the XML reader (read-xml.ts) hands to the BPMN and DMN
// compilers: names resolved to namespace URIs, attributes split into plain
// and qualified ones, document order kept. Plain data without parent links,
// so a compiled model can keep parts of it as they are.

/** A namespace-qualified attribute (xmlns declarations excluded). */
export interface XmlAttr {
  ns: string;
  /** Prefix as written, for messages. */
  prefix: string;
  local: string;
  value: string;
}

/** One element. */
export interface XmlElement {
  /** Namespace URI; '' when the name is unqualified and no default namespace is declared. */
  ns: string;
  local: string;
  /** The name as written, prefix included. */
  qname: string;
  /** Unqualified attributes by name (a prototype-free record, so any name is safe as a key). */
  attrs: Record<string, string>;
  /** Qualified attributes (zeebe:…, camunda:…, xsi:…), when there are any. */
  nsAttrs?: XmlAttr[];
  /** Namespace declarations made on this element: prefix ('' for the default) → URI. */
  xmlns?: Record<string, string>;
  children: XmlElement[];
  /** The element's own character data (text and CDATA, not its children's), trimmed at both ends. */
  text: string;
}
