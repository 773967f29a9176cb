// The chart as helm renders it, for each values file in charts/orca/ci/:
// `helm lint --strict` passes and `helm template` matches its golden file
// in test/chart/golden/, so every change to what the chart renders shows in
// review. UPDATE_GOLDEN=1 rewrites the golden files (then read the diff).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOOLS, TOOLS_SKIP } from './helm-tools.ts';
import { CHART_DIR, CI_DIR, CI_VALUES, helm, templateText } from './render.ts';

const GOLDEN_DIR = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

describe.skipIf(!TOOLS)(`the chart, per values file in charts/orca/ci ${TOOLS ? '' : TOOLS_SKIP}`, () => {
  it('has the values files the issue asks for', () => {
    expect(CI_VALUES).toEqual(expect.arrayContaining(['default', 'hpa', 'everything-on', 'watch-namespace']));
  });

  it.each(CI_VALUES)('%s: helm lint --strict passes', (values) => {
    const run = helm(['lint', '--strict', CHART_DIR, '--values', join(CI_DIR, `${values}.yaml`)]);
    expect(run.stderr.split('\n').filter((line) => line !== '' && !line.includes('found symbolic link in path'))).toEqual([]);
    expect(run.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(run.status).toBe(0);
  });

  it.each(CI_VALUES)('%s: helm template matches the golden file', (values) => {
    const text = templateText(values);
    const golden = join(GOLDEN_DIR, `${values}.yaml`);
    if (UPDATE) writeFileSync(golden, text);
    expect(existsSync(golden), `${golden}: run with UPDATE_GOLDEN=1`).toBe(true);
    expect(text).toBe(readFileSync(golden, 'utf8'));
  });
});
