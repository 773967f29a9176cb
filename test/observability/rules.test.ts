// The dashboard and the alert rules shipped in deploy/observability/ (issue
// 15), checked by Prometheus's own promtool: every alert expression by
// `check rules`, every dashboard query the same way once
// scripts/dashboard-rules.mjs has made it a recording rule, and every alert
// by its unit tests (`test rules`). And every orca_ series they read is
// one Orca exposes, so a renamed metric cannot leave a panel blank.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { OrcaMetrics } from '../../api/metrics/orca-metrics.ts';
import { HAS_PROMTOOL, PROMETHEUS_SKIP, promtool } from './promtool.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = join(root, 'deploy/observability');
const alertsFile = join(dir, 'orca-alerts.yml');
const dashboardFile = join(dir, 'orca-dashboard.json');
const temp: string[] = [];
afterAll(async () => {
  for (const path of temp) await rm(path, { recursive: true, force: true });
});

interface RuleFile {
  groups: { name: string; rules: { record: string; expr: string }[] }[];
}

function dashboardRules(): RuleFile {
  return JSON.parse(execFileSync(process.execPath, [join(root, 'scripts/dashboard-rules.mjs'), dashboardFile], { encoding: 'utf8' })) as RuleFile;
}

/** The series names Orca's registry exposes, histograms with their _bucket, _sum and _count. */
async function exposedNames(): Promise<Set<string>> {
  const metrics = await new OrcaMetrics({ processMetrics: false }).registry.getMetricsAsJSON();
  const names = new Set<string>();
  for (const metric of metrics) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

const orcaNames = (expr: string) => [...expr.matchAll(/\borca_[a-z_]+/g)].map((m) => m[0]);

describe('what the dashboard and the alerts read', () => {
  it('every panel has a query, and together they show what the issue lists', async () => {
    const dashboard = JSON.parse(await readFile(dashboardFile, 'utf8')) as { panels: { type: string; title: string; targets?: { expr: string }[] }[] };
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) expect(panel.targets?.length ?? 0, panel.title).toBeGreaterThan(0);
    const exprs = dashboardRules().groups[0].rules.map((r) => r.expr);
    for (const needed of [
      'orca_process_instances_started_total',
      'orca_jobs_activated_total',
      'orca_job_activation_wait_seconds_bucket',
      'orca_partition_batch_duration_seconds_bucket',
      'orca_partition_commands_pending',
      'orca_partition_leader',
      'orca_incidents_open',
      'orca_http_request_duration_seconds_count',
    ])
      expect(
        exprs.some((e) => e.includes(needed)),
        needed,
      ).toBe(true);
    expect(exprs.some((e) => e.startsWith('histogram_quantile(0.5, sum by (le) (rate(orca_job_activation_wait_seconds_bucket'))).toBe(true);
    expect(exprs.some((e) => e.startsWith('histogram_quantile(0.99, sum by (le) (rate(orca_job_activation_wait_seconds_bucket'))).toBe(true);
  });

  it('reads only series Orca exposes', async () => {
    const exposed = await exposedNames();
    const alerts = await readFile(alertsFile, 'utf8');
    const used = [...dashboardRules().groups[0].rules.flatMap((r) => orcaNames(r.expr)), ...orcaNames(alerts)];
    expect(used.length).toBeGreaterThan(20);
    for (const name of used) expect(exposed, name).toContain(name);
  });
});

describe.skipIf(!HAS_PROMTOOL)(`promtool ${HAS_PROMTOOL ? '' : PROMETHEUS_SKIP}`, () => {
  it('checks the alert rules', async () => {
    const result = await promtool(['check', 'rules', alertsFile]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/SUCCESS: 6 rules found/);
    expect(result.code).toBe(0);
  });

  it('checks every dashboard query, as a recording rule', async () => {
    const rules = dashboardRules();
    const work = await mkdtemp(join(tmpdir(), 'orca-rules-'));
    temp.push(work);
    const file = join(work, 'dashboard-rules.yml');
    await writeFile(file, JSON.stringify(rules));
    const result = await promtool(['check', 'rules', file]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`SUCCESS: ${rules.groups[0].rules.length} rules found`);
    expect(result.code).toBe(0);
  });

  it('passes the unit tests of the alerts, and every alert has some', async () => {
    const alerts = [...(await readFile(alertsFile, 'utf8')).matchAll(/^\s*- alert: (\w+)/gm)].map((m) => m[1]);
    const tested = new Set([...(await readFile(join(dir, 'orca-alerts.test.yml'), 'utf8')).matchAll(/alertname: (\w+)/g)].map((m) => m[1]));
    expect(alerts.length).toBe(6);
    for (const alert of alerts) expect(tested, alert).toContain(alert);
    const result = await promtool(['test', 'rules', join(dir, 'orca-alerts.test.yml')]);
    expect(result.stdout + result.stderr).toMatch(/SUCCESS/);
    expect(result.code).toBe(0);
  });

  it('refuses a broken expression (the check can fail)', async () => {
    const work = await mkdtemp(join(tmpdir(), 'orca-rules-'));
    temp.push(work);
    const file = join(work, 'broken.yml');
    await writeFile(file, JSON.stringify({ groups: [{ name: 'broken', rules: [{ record: 'broken:x', expr: 'sum(rate(orca_jobs_created_total[5m])' }] }] }));
    const result = await promtool(['check', 'rules', file]);
    expect(result.code).not.toBe(0);
  });
});
