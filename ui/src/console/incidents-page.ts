// /console/incidents: incidents across instances, open ones by default,
// filtered by state and process, each linked to its instance, with "Close
// incident record" (the instance stays INCIDENT: SPEC.md).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../common/api.ts';
import { StateTag, When } from '../common/format.ts';
import { href, Link, navigate } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { PagerNav, usePager, useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import { type Column, DataTable } from '../common/table.ts';
import type { Incident, Page } from '../common/types.ts';

export function IncidentsPage(props: { query: URLSearchParams }) {
  useTitle('Incidents', 'console');
  const state = props.query.get('state') ?? 'OPEN';
  const process = props.query.get('process') ?? '';
  const pager = usePager([state, process]);
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const polled = usePoll(
    () =>
      api<Page<Incident>>('/api/v1/incidents', {
        query: { 'filter.state': state === 'ALL' ? undefined : state, 'filter.bpmnProcessId': process || undefined, limit: 25, cursor: pager.cursor },
      }),
    [state, process, pager.cursor],
  );
  const [draftProcess, setDraftProcess] = useState(process);

  const close = async (incident: Incident) => {
    setActionError(null);
    try {
      await api(`/api/v1/incidents/${encodeURIComponent(incident.id)}`, { method: 'PATCH' });
      setNote(`The record of incident ${incident.id} was closed; instance ${incident.processInstanceKey} stays in incident.`);
    } catch (error) {
      setActionError((error as Error).message);
    }
    await polled.reload();
  };
  const columns: Column<Incident>[] = [
    { header: 'Instance', cell: (incident) => html`<${Link} to=${href(`instances/${incident.processInstanceKey}`)}>${incident.processInstanceKey}<//>` },
    { header: 'Element', cell: (incident) => html`<code>${incident.elementId}</code>` },
    { header: 'Message', cell: (incident) => incident.message },
    { header: 'Record', cell: (incident) => html`<${StateTag} state=${incident.state} />` },
    { header: 'Raised', cell: (incident) => html`<${When} iso=${incident.createdAt} />` },
    {
      header: 'Action',
      hiddenHeader: true,
      cell: (incident) => (incident.state === 'OPEN' ? html`<button type="button" onClick=${() => close(incident)}>Close incident record</button>` : null),
    },
  ];

  return html`<h1>Incidents</h1>
    <form
      class="filters"
      aria-label="Incident filters"
      onSubmit=${(e: Event) => {
        e.preventDefault();
        navigate(href('incidents', { state, process: draftProcess }));
      }}
    >
      <div>
        <label for="i-state">Record</label>
        <select id="i-state" value=${state} onChange=${(e: Event) => navigate(href('incidents', { state: (e.target as HTMLSelectElement).value, process }))}>
          <option value="OPEN">Open</option>
          <option value="RESOLVED">Closed</option>
          <option value="ALL">All</option>
        </select>
      </div>
      <div>
        <label for="i-process">Process id</label>
        <input id="i-process" value=${draftProcess} onInput=${(e: Event) => setDraftProcess((e.target as HTMLInputElement).value)} />
      </div>
      <div class="actions"><button type="submit">Apply filters</button></div>
    </form>
    ${note ? html`<p class="notice" role="status">${note}</p>` : null}
    <${ErrorNote} message=${actionError ?? polled.error} />
    ${polled.loading && !polled.data ? html`<${Loading} />` : null}
    ${polled.data && polled.data.items.length === 0 ? html`<p role="status">No incident matches.</p>` : null}
    ${
      polled.data && polled.data.items.length > 0
        ? html`<${DataTable} columns=${columns} rows=${polled.data.items} rowKey=${(incident: Incident) => incident.id} />
            <${PagerNav} pager=${pager} nextCursor=${polled.data.nextCursor} label="Incident pages" />`
        : null
    }`;
}
