// /console/instances: instances, newest first, filtered by state, process,
// version, a root variable (name:value) and start/end date ranges, with
// cursor paging. The filters live in the address, so a filtered list can be
// shared; nonsense is refused in the page before anything is sent, and what
// the server refuses is shown with the field it names.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../common/api.ts';
import { StateTag, When } from '../common/format.ts';
import { href, Link, navigate } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { PagerNav, usePager, useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import { type Column, DataTable } from '../common/table.ts';
import type { InstanceSummary, Page } from '../common/types.ts';

const FIELDS = ['state', 'process', 'version', 'variable', 'startedAfter', 'startedBefore', 'endedAfter', 'endedBefore'] as const;
type Field = (typeof FIELDS)[number];
type Filters = Partial<Record<Field, string>>;

const DATE_FIELDS: [Field, string][] = [
  ['startedAfter', 'Started after'],
  ['startedBefore', 'Started before'],
  ['endedAfter', 'Ended after'],
  ['endedBefore', 'Ended before'],
];

/** What is wrong with the filters, in words, or null. */
export function filterProblem(filters: Filters): string | null {
  if (filters.version && !/^[1-9][0-9]{0,8}$/.test(filters.version)) return 'Version must be a whole number of at least 1.';
  if (filters.variable && !/^[^:]+:.*$/.test(filters.variable)) return 'Variable must be written name:value, for example orderId:A1.';
  for (const [field, label] of DATE_FIELDS) {
    const value = filters[field];
    if (value && Number.isNaN(new Date(value).getTime())) return `${label} is not a date and time.`;
  }
  return null;
}

const COLUMNS: Column<InstanceSummary>[] = [
  { header: 'Instance', cell: (item) => html`<${Link} to=${href(`instances/${item.processInstanceKey}`)}>${item.processInstanceKey}<//>` },
  { header: 'Process', cell: (item) => item.bpmnProcessId },
  { header: 'Version', cell: (item) => item.version },
  { header: 'State', cell: (item) => html`<${StateTag} state=${item.state} />` },
  { header: 'Started', cell: (item) => html`<${When} iso=${item.createdAt} />` },
  { header: 'Ended', cell: (item) => html`<${When} iso=${item.endedAt} />` },
];

function apiQuery(filters: Filters, cursor: string | undefined) {
  const iso = (value: string | undefined) => (value ? new Date(value).toISOString() : undefined);
  return {
    'filter.state': filters.state,
    'filter.bpmnProcessId': filters.process,
    'filter.version': filters.version,
    'filter.variable': filters.variable,
    'filter.startedAfter': iso(filters.startedAfter),
    'filter.startedBefore': iso(filters.startedBefore),
    'filter.endedAfter': iso(filters.endedAfter),
    'filter.endedBefore': iso(filters.endedBefore),
    limit: 25,
    cursor,
  };
}

export function InstancesPage(props: { query: URLSearchParams }) {
  useTitle('Instances', 'console');
  const applied: Filters = {};
  for (const field of FIELDS) applied[field] = props.query.get(field) ?? undefined;
  const key = JSON.stringify(applied);
  const [draft, setDraft] = useState<Filters>(applied);
  const [draftKey, setDraftKey] = useState(key);
  if (draftKey !== key) {
    // The address changed (back, a link): the form follows it.
    setDraft(applied);
    setDraftKey(key);
  }
  const [formError, setFormError] = useState<string | null>(null);
  const pager = usePager([key]);
  const problem = filterProblem(applied);
  const polled = usePoll(
    async () => (problem ? undefined : api<Page<InstanceSummary>>('/api/v1/process-instances', { query: apiQuery(applied, pager.cursor) })),
    [key, pager.cursor],
  );

  const apply = (event: Event) => {
    event.preventDefault();
    const wrong = filterProblem(draft);
    setFormError(wrong);
    if (!wrong) navigate(href('instances', draft));
  };
  const set = (field: Field) => (event: Event) => setDraft({ ...draft, [field]: (event.target as HTMLInputElement).value || undefined });

  return html`<h1>Instances</h1>
    <form class="filters" onSubmit=${apply} aria-label="Instance filters">
      <div>
        <label for="f-state">State</label>
        <select id="f-state" value=${draft.state ?? ''} onChange=${set('state')}>
          <option value="">Any</option>
          <option value="ACTIVE">Active</option>
          <option value="INCIDENT">Incident</option>
          <option value="COMPLETED">Completed</option>
          <option value="TERMINATED">Terminated</option>
        </select>
      </div>
      <div>
        <label for="f-process">Process id</label>
        <input id="f-process" value=${draft.process ?? ''} onInput=${set('process')} />
      </div>
      <div>
        <label for="f-version">Version</label>
        <input id="f-version" inputmode="numeric" value=${draft.version ?? ''} onInput=${set('version')} />
      </div>
      <div>
        <label for="f-variable">Variable (name:value)</label>
        <input id="f-variable" value=${draft.variable ?? ''} onInput=${set('variable')} placeholder="orderId:A1" />
      </div>
      ${DATE_FIELDS.map(
        ([field, label]) =>
          html`<div>
            <label for=${`f-${field}`}>${label}</label>
            <input id=${`f-${field}`} type="datetime-local" value=${draft[field] ?? ''} onInput=${set(field)} />
          </div>`,
      )}
      <div class="actions">
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick=${() => navigate(href('instances'))}>Clear filters</button>
      </div>
    </form>
    <${ErrorNote} message=${formError ?? problem ?? polled.error} />
    ${polled.loading && !polled.data && !problem ? html`<${Loading} />` : null}
    ${polled.data && polled.data.items.length === 0 ? html`<p role="status">No instance matches these filters.</p>` : null}
    ${
      polled.data && polled.data.items.length > 0
        ? html`<${DataTable}
              caption="Instances, newest first"
              columns=${COLUMNS}
              rows=${polled.data.items}
              rowKey=${(item: InstanceSummary) => item.processInstanceKey}
            />
            <${PagerNav} pager=${pager} nextCursor=${polled.data.nextCursor} label="Instance pages" />`
        : null
    }`;
}
