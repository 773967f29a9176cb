// Telling BPMN, DMN and CMMN files apart for the CLI: by the namespace the
// document declares, so a file's extension does not have to be right.
export function isDmn(xml: string): boolean {
  const head = xml.slice(0, 4096);
  return /omg\.org\/spec\/DMN\//.test(head) || /www\.omg\.org\/spec\/DMN\/20151101\/dmn\.xsd/.test(head);
}

export function isCmmn(xml: string): boolean {
  return /omg\.org\/spec\/CMMN\/\d+\/MODEL/.test(xml.slice(0, 4096));
}
