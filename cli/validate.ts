// `orca validate FILE...`: every problem of every file (BPMN, DMN or CMMN), one
// per line, with the element id, so a modeller can fix them all in one pass;
// then the warnings of a valid model (elements that run differently from
// Camunda 8), which do not fail the validation. `--inline-scripts` shows
// them as a deploy with that option (extension) would.
import { compileCmmn } from '../engine/cmmn/index.ts';
import { compileDmn } from '../engine/dmn/index.ts';
import { compileBpmn, withInlineScripts } from '../engine/model/index.ts';
import { isCmmn, isDmn } from './model-kind.ts';
import { readModelFile } from './read-model-file.ts';

export async function runValidate(args: string[]): Promise<number> {
  const inlineScripts = args.includes('--inline-scripts');
  const files = args.filter((a) => a !== '--inline-scripts');
  if (files.length === 0) {
    process.stderr.write('orca validate: name at least one model file\n');
    return 1;
  }
  let failed = 0;
  for (const file of files) {
    const read = await readModelFile(file);
    if (!read.ok) {
      process.stdout.write(`${file}: error: ${read.error}\n`);
      failed++;
      continue;
    }
    if (isDmn(read.xml)) {
      const dmn = compileDmn(read.xml);
      if (dmn.ok) {
        process.stdout.write(
          `${file}: ok (${dmn.model.decisions.length} decision${dmn.model.decisions.length === 1 ? '' : 's'}: ${dmn.model.decisions.map((d) => d.id).join(', ')})\n`,
        );
      } else {
        failed++;
        for (const problem of dmn.problems) process.stdout.write(`${file}: error: ${where(problem.elementId)}${problem.message}\n`);
      }
      continue;
    }
    if (isCmmn(read.xml)) {
      const cmmn = compileCmmn(read.xml);
      if (cmmn.ok) {
        const ids = cmmn.model.cases.map((c) => c.id);
        process.stdout.write(`${file}: ok (${ids.length} case${ids.length === 1 ? '' : 's'}: ${ids.join(', ')})\n`);
        for (const warning of cmmn.model.warnings) process.stdout.write(`${file}: warning: ${where(warning.elementId)}${warning.code}: ${warning.message}\n`);
      } else {
        failed++;
        for (const problem of cmmn.problems) process.stdout.write(`${file}: error: ${where(problem.elementId)}${problem.message}\n`);
      }
      continue;
    }
    const compiled = compileBpmn(read.xml);
    const result = compiled.ok && inlineScripts ? { ...compiled, model: withInlineScripts(compiled.model) } : compiled;
    if (result.ok) {
      const ids = result.model.processes.map((p) => p.id).join(', ');
      process.stdout.write(`${file}: ok (${result.model.processes.length} executable process${result.model.processes.length === 1 ? '' : 'es'}: ${ids})\n`);
      for (const warning of result.model.warnings) process.stdout.write(`${file}: warning: ${where(warning.elementId)}${warning.code}: ${warning.message}\n`);
    } else {
      failed++;
      for (const problem of result.problems) process.stdout.write(`${file}: error: ${where(problem.elementId)}${problem.message}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}

function where(elementId: string | undefined): string {
  return elementId === undefined ? '' : `[${elementId}] `;
}
