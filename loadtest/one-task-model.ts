// The smallest model a benchmark deploys by the hundred: start → one service
// task → end, under a process id and job type of the caller's choosing, so
// each deploy can be a new definition.

export function oneTaskModel(processId: string, jobType: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-${processId}" targetNamespace="http://orca.dev/bench">
  <bpmn:process id="${processId}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="${jobType}"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:endEvent id="end"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
  </bpmn:process>
</bpmn:definitions>`;
}
