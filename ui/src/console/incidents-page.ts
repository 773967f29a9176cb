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
        ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Instance</th>
                  <th scope="col">Element</th>
                  <th scope="col">Message</th>
                  <th scope="col">Record</th>
                  <th scope="col">Raised</th>
                  <th scope="col"><span class="visually-hidden">Action</span></th>
                </tr>
              </thead>
              <tbody>
                ${polled.data.items.map(
                  (incident) =>
                    html`<tr>
                      <th scope="row"><${Link} to=${href(`instances/${incident.processInstanceKey}`)}>${incident.processInstanceKey}<//></th>
                      <td><code>${incident.elementId}</code></td>
                      <td>${incident.message}</td>
                      <td><${StateTag} state=${incident.state} /></td>
                      <td><${When} iso=${incident.createdAt} /></td>
                      <td>${incident.state === 'OPEN' ? html`<button type="button" onClick=${() => close(incident)}>Close incident record</button>` : null}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
            <${PagerNav} pager=${pager} nextCursor=${polled.data.nextCursor} label="Incident pages" />`
        : null
    }`;
}
