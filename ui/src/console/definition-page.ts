// /console/definitions/<id>?version=N: one version's diagram with the
// counts across all its instances (badges per element, classes by state),
// the same counts as a table, and the version's instances by state.
import { html } from 'htm/preact';
import { api, apiText } from '../common/api.ts';
import { Diagram, type ElementCounts } from '../common/diagram.ts';
import { href, Link, navigate } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import { type Column, DataTable } from '../common/table.ts';
import type { DefinitionDetail, DefinitionStatistics } from '../common/types.ts';
import { instanceCounts } from './definitions-page.ts';

const COUNT_COLUMNS: Column<ElementCounts>[] = [
  { header: 'Element', cell: (e) => html`<code>${e.elementId}</code>` },
  { header: 'Active', cell: (e) => e.active },
  { header: 'Incidents', cell: (e) => e.incidents },
  { header: 'Completed', cell: (e) => e.completed },
  { header: 'Canceled', cell: (e) => e.canceled },
];

export function DefinitionPage(props: { id: string; version: string | null }) {
  useTitle(`Process ${props.id}`, 'console');
  const path = `/api/v1/process-definitions/${encodeURIComponent(props.id)}`;
  const detail = usePoll(() => api<DefinitionDetail>(path), [props.id], 0);
  const version = props.version ?? (detail.data ? String(detail.data.latestVersion) : undefined);
  const xml = usePoll(async () => (version ? apiText(`${path}/xml`, { query: { version } }) : undefined), [props.id, version], 0);
  const stats = usePoll(async () => (version ? api<DefinitionStatistics>(`${path}/statistics`, { query: { version } }) : undefined), [props.id, version]);
  const counts = instanceCounts(stats.data ?? null);
  const elements = stats.data?.elements ?? [];

  return html`<h1>Process ${props.id}</h1>
    <${ErrorNote} message=${detail.error} />
    ${detail.loading ? html`<${Loading} />` : null}
    ${
      detail.data
        ? html`<form class="inline" onSubmit=${(e: Event) => e.preventDefault()}>
              <label for="version">Version</label>
              <select
                id="version"
                value=${version}
                onChange=${(e: Event) => navigate(href(`definitions/${encodeURIComponent(props.id)}`, { version: (e.target as HTMLSelectElement).value }))}
              >
                ${detail.data.deployments.map((d) => html`<option value=${String(d.version)}>Version ${d.version} (${d.resourceName})</option>`)}
              </select>
            </form>
            <p>
              ${
                counts
                  ? `Instances of this version: ${counts.active} active, ${counts.incidents} in incident, ${counts.completed} completed, ${counts.canceled} canceled. `
                  : null
              }
              <${Link} to=${href('instances', { process: props.id, version })}>List the instances of version ${version}<//>
            </p>
            <section aria-labelledby="diagram-heading">
              <h2 id="diagram-heading">Diagram</h2>
              <${Diagram} xml=${xml.data} marks=${stats.data} label=${`Process ${props.id}, version ${version}, with counts across all its instances.`} />
              <${ErrorNote} message=${xml.error ?? stats.error} />
            </section>
            <section aria-labelledby="counts-heading">
              <h2 id="counts-heading">Element statistics</h2>
              ${
                elements.length === 0
                  ? html`<p>No element of this version has run yet.</p>`
                  : html`<${DataTable} columns=${COUNT_COLUMNS} rows=${elements} rowKey=${(e: ElementCounts) => e.elementId} />`
              }
            </section>`
        : null
    }`;
}
