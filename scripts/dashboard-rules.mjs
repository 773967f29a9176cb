#!/usr/bin/env node
// Turns every query of a Grafana dashboard into a Prometheus recording
// rule, so `promtool check rules` checks the dashboard's PromQL as it
// checks the alerts' (issue 15). Grafana's interval variables become a
// fixed window; a query naming another variable is refused, since promtool
// could not check it. Writes the rule file (JSON, which is YAML) to stdout
// or to the path given.
//
//   node scripts/dashboard-rules.mjs deploy/observability/orca-dashboard.json [out.yml]
import { readFileSync, writeFileSync } from 'node:fs';

const GRAFANA_WINDOWS = /\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}/g;

/** Every query of the dashboard: panel id and title, refId, expression; rows' nested panels included. */
export function dashboardQueries(dashboard) {
  const out = [];
  const visit = (panels) => {
    for (const panel of panels ?? []) {
      for (const target of panel.targets ?? []) {
        if (typeof target.expr === 'string' && target.expr.trim() !== '')
          out.push({ panel: panel.id, title: panel.title, refId: target.refId, expr: target.expr });
      }
      visit(panel.panels);
    }
  };
  visit(dashboard.panels);
  return out;
}

/** The recording-rule file for the queries; throws on a query promtool could not read. */
export function recordingRules(queries) {
  const rules = queries.map((q) => {
    const expr = q.expr.replace(GRAFANA_WINDOWS, '5m');
    if (expr.includes('$')) throw new Error(`panel ${q.panel} (${q.title}) ${q.refId}: a dashboard variable promtool cannot check: ${q.expr}`);
    return { record: `dashboard:panel_${q.panel}:${String(q.refId).toLowerCase()}`, expr };
  });
  return { groups: [{ name: 'dashboard-queries', rules }] };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output] = process.argv.slice(2);
  if (input === undefined) {
    process.stderr.write('usage: node scripts/dashboard-rules.mjs <dashboard.json> [out.yml]\n');
    process.exit(2);
  }
  const text = `${JSON.stringify(recordingRules(dashboardQueries(JSON.parse(readFileSync(input, 'utf8')))), null, 2)}\n`;
  if (output === undefined) process.stdout.write(text);
  else writeFileSync(output, text);
}
