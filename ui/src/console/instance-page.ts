// /console/instances/<key>: one instance while it runs. The diagram marked
// by state with counts and taken flows (the instance's statistics), a hint
// and a link when a called child instance is in incident, the variables as
// JSON, the incidents with "Close incident record", the element history,
// and the two remedies SPEC.md allows: cancel an active instance, or start
// a new instance from these variables (an instance in INCIDENT cannot be
// resumed). Polls, so it moves from active to completed without a reload.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, apiText } from '../common/api.ts';
import { Diagram, type DiagramMarks } from '../common/diagram.ts';
import { JsonBlock, StateTag, When } from '../common/format.ts';
import { href, Link, navigate } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import { type Column, DataTable } from '../common/table.ts';
import type { HistoryItem, Incident, InstanceDetail, InstanceStatistics, InstanceSummary, Page, VariableChange } from '../common/types.ts';

/** Marks from the instance itself, when its statistics cannot be read: what is active and what is stuck. */
function marksFromDetail(detail: InstanceDetail, incidents: Incident[]): DiagramMarks {
  const byElement = new Map<string, { elementId: string; active: number; incidents: number; completed: number; canceled: number }>();
  const entry = (elementId: string) => {
    let e = byElement.get(elementId);
    if (!e) byElement.set(elementId, (e = { elementId, active: 0, incidents: 0, completed: 0, canceled: 0 }));
    return e;
  };
  for (const element of detail.activeElements) if (!element.incidentKey) entry(element.elementId).active += 1;
  for (const incident of incidents) if (incident.state === 'OPEN') entry(incident.elementId).incidents += 1;
  return { elements: [...byElement.values()] };
}

const HISTORY_COLUMNS: Column<HistoryItem>[] = [
  { header: 'Element', cell: (item) => html`<code>${item.elementId}</code>` },
  { header: 'Type', cell: (item) => item.elementType },
  {
    header: 'State',
    cell: (item) =>
      html`<${StateTag} state=${item.state} />${
          item.calledProcessInstanceKey
            ? html` <${Link} to=${href(`instances/${item.calledProcessInstanceKey}`)}>called instance ${item.calledProcessInstanceKey}<//>`
            : null
        }`,
  },
  { header: 'Started', cell: (item) => html`<${When} iso=${item.startedAt} />` },
  { header: 'Ended', cell: (item) => html`<${When} iso=${item.endedAt} />` },
];

const CHANGE_COLUMNS: Column<VariableChange>[] = [
  { header: 'Set by', cell: (change) => html`<code>${change.elementId}</code>` },
  { header: 'Variables', cell: (change) => change.variables.map((name, i) => html`${i > 0 ? ', ' : ''}<code>${name}</code>`) },
  { header: 'When', cell: (change) => html`<${When} iso=${change.at} />` },
];

interface Loaded {
  detail: InstanceDetail;
  incidents: Incident[];
  marks: DiagramMarks;
  statsNote: string | null;
  history: Page<HistoryItem> | null;
  historyError: string | null;
  changes: Page<VariableChange> | null;
  changesError: string | null;
  children: InstanceSummary[];
}

export function InstancePage(props: { instanceKey: string }) {
  const key = props.instanceKey;
  useTitle(`Instance ${key}`, 'console');
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const base = `/api/v1/process-instances/${encodeURIComponent(key)}`;

  const polled = usePoll(async (): Promise<Loaded> => {
    const detail = await api<InstanceDetail>(base);
    const [incidents, stats, history, changes, children] = await Promise.all([
      api<Page<Incident>>('/api/v1/incidents', { query: { 'filter.processInstanceKey': key, limit: 100 } }),
      api<InstanceStatistics>(`${base}/statistics`).catch((e: Error) => e),
      api<Page<HistoryItem>>(`${base}/history`, { query: { limit: 500 } }).catch((e: Error) => e),
      api<Page<VariableChange>>(`${base}/variable-changes`, { query: { limit: 200 } }).catch((e: Error) => e),
      api<Page<InstanceSummary>>('/api/v1/process-instances', { query: { 'filter.parentProcessInstanceKey': key, 'filter.state': 'INCIDENT', limit: 20 } })
        .then((p) => p.items)
        .catch(() => [] as InstanceSummary[]),
    ]);
    const statsOk = !(stats instanceof Error);
    return {
      detail,
      incidents: incidents.items,
      marks: statsOk ? stats : marksFromDetail(detail, incidents.items),
      statsNote: statsOk ? null : `Completed elements are not shown: ${stats.message}`,
      history: history instanceof Error ? null : history,
      historyError: history instanceof Error ? history.message : null,
      changes: changes instanceof Error ? null : changes,
      changesError: changes instanceof Error ? changes.message : null,
      children: children.filter((c) => c.parentProcessInstanceKey === key),
    };
  }, [key]);
  const detail = polled.data?.detail;
  const xml = usePoll(
    async () =>
      detail ? apiText(`/api/v1/process-definitions/${encodeURIComponent(detail.bpmnProcessId)}/xml`, { query: { version: detail.version } }) : undefined,
    [detail?.bpmnProcessId, detail?.version],
    0,
  );

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setActionError(null);
    setNote(null);
    try {
      await what();
    } catch (error) {
      setActionError((error as Error).message);
    } finally {
      setBusy(false);
      await polled.reload();
    }
  };
  const cancel = () =>
    act(async () => {
      await api(`${base}/cancel`, { method: 'POST' });
      setNote('The instance was canceled.');
    });
  const startAgain = () =>
    act(async () => {
      const started = await api<{ processInstanceKey: string }>('/api/v1/process-instances', {
        method: 'POST',
        json: { bpmnProcessId: detail!.bpmnProcessId, variables: detail!.variables },
      });
      navigate(href(`instances/${started.processInstanceKey}`));
    });
  const closeRecord = (incident: Incident) =>
    act(async () => {
      await api(`/api/v1/incidents/${encodeURIComponent(incident.id)}`, { method: 'PATCH' });
      setNote(`The record of incident ${incident.id} was closed. The instance stays in incident; start a new instance to carry on.`);
    });
  const incidentColumns: Column<Incident>[] = [
    { header: 'Element', cell: (incident) => html`<code>${incident.elementId}</code>` },
    { header: 'Type', cell: (incident) => incident.type },
    { header: 'Message', cell: (incident) => incident.message },
    { header: 'Record', cell: (incident) => html`<${StateTag} state=${incident.state} />` },
    { header: 'Raised', cell: (incident) => html`<${When} iso=${incident.createdAt} />` },
    {
      header: 'Action',
      hiddenHeader: true,
      cell: (incident) =>
        incident.state === 'OPEN' ? html`<button type="button" disabled=${busy} onClick=${() => closeRecord(incident)}>Close incident record</button>` : null,
    },
  ];

  if (!detail)
    return html`<h1>Instance ${key}</h1>
      ${polled.loading ? html`<${Loading} />` : null}
      <${ErrorNote} message=${polled.error} />
      <p><${Link} to=${href('instances')}>Back to the instances<//></p>`;

  const loaded = polled.data!;
  return html`<h1>Instance ${key} <${StateTag} state=${detail.state} /></h1>
    <${ErrorNote} message=${polled.error} />
    <dl class="facts">
      <dt>Process</dt>
      <dd>
        <${Link} to=${href(`definitions/${encodeURIComponent(detail.bpmnProcessId)}`, { version: detail.version })}>${detail.bpmnProcessId}<//>
        ${` version ${detail.version}`}
      </dd>
      <dt>State</dt>
      <dd data-testid="instance-state">${detail.state}</dd>
      <dt>Started</dt>
      <dd><${When} iso=${detail.createdAt} /></dd>
      <dt>Ended</dt>
      <dd><${When} iso=${detail.endedAt} /></dd>
      ${
        detail.parentProcessInstanceKey
          ? html`<dt>Called by</dt>
              <dd><${Link} to=${href(`instances/${detail.parentProcessInstanceKey}`)}>Instance ${detail.parentProcessInstanceKey}<//></dd>`
          : null
      }
    </dl>
    <div class="actions">
      ${detail.state === 'ACTIVE' ? html`<button type="button" class="danger" disabled=${busy} onClick=${cancel}>Cancel instance</button>` : null}
      <button type="button" disabled=${busy} onClick=${startAgain}>Start a new instance from these variables</button>
    </div>
    ${note ? html`<p class="notice" role="status">${note}</p>` : null}
    <${ErrorNote} message=${actionError} />
    ${
      loaded.children.length > 0
        ? html`<div class="hints">
            ${loaded.children.map(
              (child) =>
                html`<p class="hint" role="note">
                  A called child instance is in incident:
                  <${Link} to=${href(`instances/${child.processInstanceKey}`)}>instance ${child.processInstanceKey} (${child.bpmnProcessId})<//>.
                </p>`,
            )}
          </div>`
        : null
    }
    <section aria-labelledby="diagram-heading">
      <h2 id="diagram-heading">Diagram</h2>
      <${Diagram}
        xml=${xml.data}
        marks=${loaded.marks}
        label=${`Process ${detail.bpmnProcessId} version ${detail.version}: elements marked active, incident or completed for this instance.`}
      />
      <${ErrorNote} message=${xml.error} />
      ${loaded.statsNote ? html`<p class="muted">${loaded.statsNote}</p>` : null}
    </section>
    <section aria-labelledby="variables-heading">
      <h2 id="variables-heading">Variables</h2>
      <${JsonBlock} value=${detail.variables} label="Variables as JSON" />
    </section>
    <section aria-labelledby="changes-heading">
      <h2 id="changes-heading">Variable changes</h2>
      <p class="help">Which variables each job or task completion sent, in order. Only the names are recorded; the values above are the current ones.</p>
      <${ErrorNote} message=${loaded.changesError} />
      ${
        loaded.changes && loaded.changes.items.length === 0
          ? html`<p>No completion has set a variable yet: the variables are those the instance started with.</p>`
          : null
      }
      ${
        loaded.changes && loaded.changes.items.length > 0
          ? html`<${DataTable} columns=${CHANGE_COLUMNS} rows=${loaded.changes.items} rowKey=${(change: VariableChange) => change.jobKey} />
              ${loaded.changes.nextCursor ? html`<p class="muted">The first 200 changes are shown.</p>` : null}`
          : null
      }
    </section>
    <section aria-labelledby="incidents-heading">
      <h2 id="incidents-heading">Incidents</h2>
      ${
        loaded.incidents.length === 0
          ? html`<p>This instance has no incidents.</p>`
          : html`<${DataTable} columns=${incidentColumns} rows=${loaded.incidents} rowKey=${(incident: Incident) => incident.id} />`
      }
    </section>
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Element history</h2>
      <${ErrorNote} message=${loaded.historyError} />
      ${
        loaded.history
          ? html`<${DataTable} columns=${HISTORY_COLUMNS} rows=${loaded.history.items} rowKey=${(item: HistoryItem) => item.elementInstanceKey} />
              ${loaded.history.nextCursor ? html`<p class="muted">The first 500 elements are shown.</p>` : null}`
          : null
      }
    </section>`;
}
