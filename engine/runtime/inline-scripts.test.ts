// Inline zeebe:script (extension, a deploy option): with it a script task's
// FEEL expression is evaluated inline, its result set as the result
// variable, and the task completes; a failing expression is an incident
// naming the element; a script task without an expression stays a job.
// Without the option: a `script:` job, as SPEC.md says.
import { describe, expect, it } from 'vitest';
import { compileBpmn, withInlineScripts } from '../model/index.ts';
import { InMemoryEngine } from './in-memory-engine.ts';
import { end, flow, processXml, service, start } from './testing.ts';

const script = (id: string, expression: string, resultVariable = 'total', extra = '') =>
  `<bpmn:scriptTask id="${id}"><bpmn:extensionElements><zeebe:script expression="${expression}" resultVariable="${resultVariable}"/>${extra}</bpmn:extensionElements></bpmn:scriptTask>`;

const xml = processXml(
  'p',
  start() + script('sum', '=a + b') + service('after', 'after') + end() + flow('f1', 'start', 'sum') + flow('f2', 'sum', 'after') + flow('f3', 'after', 'end'),
);

function engineFor(model: string, inline: boolean): { engine: InMemoryEngine; warnings: string[] } {
  const compiled = compileBpmn(model);
  if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join('\n'));
  const deployed = inline ? withInlineScripts(compiled.model) : compiled.model;
  const engine = new InMemoryEngine({ keepHistory: true });
  for (const p of deployed.processes) engine.deploy(p);
  return { engine, warnings: deployed.warnings.map((w) => `${w.elementId}:${w.code}`) };
}

describe('inline zeebe:script', () => {
  it('with the option, evaluates the expression, sets the result variable and moves on; no warning for it', () => {
    const { engine, warnings } = engineFor(xml, true);
    expect(warnings).not.toContain('sum:SCRIPT_TASK_IS_JOB');
    const key = engine.start('p', { a: 2, b: 3 });
    expect(engine.activate('script:sum', 1)).toEqual([]);
    const [job] = engine.activate('after', 1);
    expect(job.variables).toEqual({ a: 2, b: 3, total: 5 });
    engine.completeJob(job.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('without it, waits as a script: job and warns (SPEC.md)', () => {
    const { engine, warnings } = engineFor(xml, false);
    expect(warnings).toContain('sum:SCRIPT_TASK_IS_JOB');
    engine.start('p', { a: 2, b: 3 });
    expect(engine.activate('after', 1)).toEqual([]);
    const [job] = engine.activate('script:sum', 1);
    expect(job.customHeaders).toMatchObject({ 'script.expression': 'a + b', 'script.resultVariable': 'total' });
  });

  it('a failing expression (here over the FEEL item limit, which holds inline too) is an incident naming the element', () => {
    const model = processXml(
      'p',
      start() + script('bad', '=count(for i in 1..100000000 return i)') + end() + flow('f1', 'start', 'bad') + flow('f2', 'bad', 'end'),
    );
    const { engine } = engineFor(model, true);
    const key = engine.start('p');
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    const [incident] = Object.values(instance.incidents);
    expect(incident).toMatchObject({ type: 'EXTRACT_VALUE_ERROR', elementId: 'bad' });
    expect(incident.message).toContain("The script of 'bad' failed");
    expect(incident.message).toMatch(/FEEL limit exceeded/);
  });

  it('with output mappings the result stays local for them to pick from', () => {
    const outputs = '<zeebe:ioMapping><zeebe:output source="=total * 10" target="scaled"/></zeebe:ioMapping>';
    const model = processXml('p', start() + script('sum', '=a + 1', 'total', outputs) + end() + flow('f1', 'start', 'sum') + flow('f2', 'sum', 'end'));
    const { engine } = engineFor(model, true);
    const key = engine.start('p', { a: 1 });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(instance.variables[key]).toEqual({ a: 1, scaled: 20 });
  });

  it('a script task with a task definition instead of an expression stays a job under the option', () => {
    const worker = '<bpmn:scriptTask id="ext"><bpmn:extensionElements><zeebe:taskDefinition type="js"/></bpmn:extensionElements></bpmn:scriptTask>';
    const model = processXml('p', start() + worker + end() + flow('f1', 'start', 'ext') + flow('f2', 'ext', 'end'));
    const { engine, warnings } = engineFor(model, true);
    expect(warnings).toContain('ext:SCRIPT_TASK_IS_JOB');
    engine.start('p');
    expect(engine.activate('script:ext', 1)).toHaveLength(1);
  });
});
