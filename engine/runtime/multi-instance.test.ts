import { describe, expect, it } from 'vitest';
import { end, engineWith, escapeXml, flow, processXml, start } from './testing.ts';

function miTask(opts: { sequential?: boolean; collection?: string; output?: boolean; condition?: string }) {
  const attrs = [
    `inputCollection="${escapeXml(opts.collection ?? '=items')}"`,
    'inputElement="item"',
    opts.output ? 'outputCollection="results" outputElement="=result"' : '',
    opts.condition ? `completionCondition="${escapeXml(opts.condition)}"` : '',
  ].join(' ');
  return processXml(
    'p',
    start() +
      '<bpmn:serviceTask id="each"><bpmn:extensionElements><zeebe:taskDefinition type="each"/></bpmn:extensionElements>' +
      `<bpmn:multiInstanceLoopCharacteristics isSequential="${opts.sequential ? 'true' : 'false'}"><bpmn:extensionElements>` +
      `<zeebe:loopCharacteristics ${attrs}/></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics></bpmn:serviceTask>` +
      end() +
      flow('f1', 'start', 'each') +
      flow('f2', 'each', 'end'),
  );
}

describe('multi-instance', () => {
  it('parallel: one job per item with inputElement and loopCounter, results collected in order', () => {
    const engine = engineWith(miTask({ output: true }));
    const key = engine.start('p', { items: ['a', 'b', 'c'] });
    const jobs = engine.activate('each', 10);
    expect(jobs.map((j) => [j.variables.item, j.variables.loopCounter])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    for (const job of [...jobs].reverse()) engine.completeJob(job.key, { result: `${job.variables.item as string}!` });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(instance.variables[key].results).toEqual(['a!', 'b!', 'c!']);
  });

  it('sequential: one job at a time, in collection order', () => {
    const engine = engineWith(miTask({ sequential: true }));
    const key = engine.start('p', { items: [1, 2] });
    const first = engine.activate('each', 10);
    expect(first.map((j) => j.variables.item)).toEqual([1]);
    engine.completeJob(first[0].key);
    const second = engine.activate('each', 10);
    expect(second.map((j) => j.variables.item)).toEqual([2]);
    engine.completeJob(second[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('an empty collection completes at once', () => {
    const engine = engineWith(miTask({ output: true }));
    const key = engine.start('p', { items: [] });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.variables[key].results).toEqual([]);
  });

  it('the completion condition ends the remaining instances', () => {
    const engine = engineWith(miTask({ output: true, condition: '=numberOfCompletedInstances >= 2' }));
    const key = engine.start('p', { items: [1, 2, 3, 4] });
    const jobs = engine.activate('each', 10);
    engine.completeJob(jobs[0].key, { result: 'x' });
    engine.completeJob(jobs[3].key, { result: 'y' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.variables[key].results).toEqual(['x', null, null, 'y']);
    expect(() => engine.completeJob(jobs[1].key)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('an input collection that is not a list is an incident naming it', () => {
    const engine = engineWith(miTask({}));
    const key = engine.start('p', { items: 'abc' });
    const [incident] = Object.values(engine.instance(key)!.incidents);
    expect(incident).toMatchObject({ type: 'EXTRACT_VALUE_ERROR', elementId: 'each' });
    expect(incident.message).toContain('not a list');
  });

  it('runs a multi-instance subprocess with a scope per item', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:subProcess id="perItem"><bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements>' +
        '<zeebe:loopCharacteristics inputCollection="=items" inputElement="item"/></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>' +
        start('ss') +
        '<bpmn:serviceTask id="inner"><bpmn:extensionElements><zeebe:taskDefinition type="inner"/></bpmn:extensionElements></bpmn:serviceTask>' +
        end('se') +
        flow('s1', 'ss', 'inner') +
        flow('s2', 'inner', 'se') +
        '</bpmn:subProcess>' +
        end() +
        flow('f1', 'start', 'perItem') +
        flow('f2', 'perItem', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { items: [10, 20] });
    const jobs = engine.activate('inner', 10);
    expect(jobs.map((j) => j.variables.item)).toEqual([10, 20]);
    jobs.forEach((j) => engine.completeJob(j.key));
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});
