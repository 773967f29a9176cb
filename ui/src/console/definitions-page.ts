// /console/: the account's process definitions, each with its latest
// version and its instances by state (the version's statistics), refreshed
// while open.
import { html } from 'htm/preact';
import { api } from '../common/api.ts';
import { href, Link } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { PagerNav, usePager, useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import { type Column, DataTable } from '../common/table.ts';
import type { DefinitionStatistics, DefinitionSummary, Page } from '../common/types.ts';

interface Row extends DefinitionSummary {
  counts: { active: number; incidents: number } | null;
}

export function instanceCounts(stats: DefinitionStatistics | null): DefinitionStatistics['instances'] | null {
  return stats?.instances ?? null;
}

const countLink = (row: Row, state: 'ACTIVE' | 'INCIDENT') =>
  row.counts
    ? html`<${Link} to=${href('instances', { process: row.bpmnProcessId, state })}>${state === 'ACTIVE' ? row.counts.active : row.counts.incidents}<//>`
    : '—';

const COLUMNS: Column<Row>[] = [
  { header: 'Process', cell: (row) => html`<${Link} to=${href(`definitions/${encodeURIComponent(row.bpmnProcessId)}`)}>${row.bpmnProcessId}<//>` },
  { header: 'Latest version', cell: (row) => row.latestVersion },
  { header: 'Deployed', cell: (row) => new Date(row.deployedAt).toLocaleString() },
  { header: 'Active instances', cell: (row) => countLink(row, 'ACTIVE') },
  { header: 'Instances in incident', cell: (row) => countLink(row, 'INCIDENT') },
];

export function DefinitionsPage() {
  useTitle('Process definitions', 'console');
  const pager = usePager([]);
  const polled = usePoll(async () => {
    const page = await api<Page<DefinitionSummary>>('/api/v1/process-definitions', { query: { limit: 50, cursor: pager.cursor } });
    const rows: Row[] = await Promise.all(
      page.items.map(async (item) => {
        const stats = await api<DefinitionStatistics>(`/api/v1/process-definitions/${encodeURIComponent(item.bpmnProcessId)}/statistics`).catch(() => null);
        return { ...item, counts: instanceCounts(stats) };
      }),
    );
    return { rows, nextCursor: page.nextCursor };
  }, [pager.cursor]);

  return html`<h1>Process definitions</h1>
    <${ErrorNote} message=${polled.error} />
    ${polled.loading && !polled.data ? html`<${Loading} />` : null}
    ${
      polled.data && polled.data.rows.length === 0
        ? html`<p>No process is deployed yet. Deploy a BPMN model with <code>orca deploy</code> or <code>POST /api/v1/process-definitions</code>.</p>`
        : null
    }
    ${
      polled.data && polled.data.rows.length > 0
        ? html`<${DataTable}
              caption="Deployed processes; instance counts are those of the latest version"
              columns=${COLUMNS}
              rows=${polled.data.rows}
              rowKey=${(row: Row) => row.bpmnProcessId}
            />
            <${PagerNav} pager=${pager} nextCursor=${polled.data.nextCursor} label="Process definition pages" />`
        : null
    }`;
}
