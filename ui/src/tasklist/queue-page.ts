// /tasklist/: the human tasks, filtered: all open, assigned to me ("Your
// name") or unassigned, oldest first (by creation); or completed, newest
// first, with who held each and when it was completed (the completed-tasks
// extension routes).
import { html } from 'htm/preact';
import { api } from '../common/api.ts';
import { StateTag, When } from '../common/format.ts';
import { href, Link, navigate } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { PagerNav, usePager, useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import { type Column, DataTable } from '../common/table.ts';
import type { CompletedTask, Page, Task } from '../common/types.ts';
import { useYourName, YourNameField } from './your-name.ts';

const FILTERS = [
  ['open', 'All open'],
  ['mine', 'Assigned to me'],
  ['unassigned', 'Unassigned'],
  ['completed', 'Completed'],
] as const;

const taskLink = (task: { id: string; elementId: string }, path: string) => html`<${Link} to=${href(`${path}/${task.id}`)}>${task.elementId} (${task.id})<//>`;
const instanceLink = (task: { processInstanceKey: string }) => html`<a href=${`/console/instances/${task.processInstanceKey}`}>${task.processInstanceKey}</a>`;
const nobody = html`<span class="muted">Unassigned</span>`;

const OPEN_COLUMNS: Column<Task>[] = [
  { header: 'Task', cell: (task) => taskLink(task, 'tasks') },
  { header: 'Process', cell: (task) => `${task.bpmnProcessId} v${task.version}` },
  { header: 'Instance', cell: instanceLink },
  { header: 'Assignee', cell: (task) => task.assignee || nobody },
  { header: 'State', cell: (task) => html`<${StateTag} state=${task.state} />` },
  { header: 'Created', cell: (task) => html`<${When} iso=${task.createdAt} />` },
];

const COMPLETED_COLUMNS: Column<CompletedTask>[] = [
  { header: 'Task', cell: (task) => taskLink(task, 'completed') },
  { header: 'Process', cell: (task) => `${task.bpmnProcessId} v${task.version}` },
  { header: 'Instance', cell: instanceLink },
  { header: 'Completed by', cell: (task) => task.assignee || nobody },
  { header: 'Created', cell: (task) => html`<${When} iso=${task.createdAt} />` },
  { header: 'Completed', cell: (task) => html`<${When} iso=${task.completedAt} />` },
];

type Listed = { kind: 'open'; page: Page<Task> } | { kind: 'completed'; page: Page<CompletedTask> };

export function QueuePage(props: { query: URLSearchParams }) {
  useTitle('Tasks', 'task list');
  const [name] = useYourName();
  const filter = FILTERS.some(([value]) => value === props.query.get('filter')) ? props.query.get('filter')! : 'open';
  const pager = usePager([filter, name]);
  const needsName = filter === 'mine' && name === '';
  const polled = usePoll(async (): Promise<Listed | undefined> => {
    if (needsName) return undefined;
    if (filter === 'completed') {
      return { kind: 'completed', page: await api<Page<CompletedTask>>('/api/v1/completed-tasks', { query: { limit: 25, cursor: pager.cursor } }) };
    }
    const page = await api<Page<Task>>('/api/v1/tasks', {
      query: {
        'filter.assignee': filter === 'mine' ? name : undefined,
        'filter.assigned': filter === 'unassigned' ? 'false' : undefined,
        limit: 25,
        cursor: pager.cursor,
      },
    });
    return { kind: 'open', page };
  }, [filter, name, pager.cursor]);
  const listed = polled.data;

  return html`<h1>Tasks</h1>
    <${YourNameField} />
    <fieldset class="segmented">
      <legend>Show</legend>
      ${FILTERS.map(
        ([value, label]) =>
          html`<label>
            <input type="radio" name="filter" value=${value} checked=${filter === value} onChange=${() => navigate(href('', { filter: value }))} />
            ${label}
          </label>`,
      )}
    </fieldset>
    ${needsName ? html`<p role="status">Type your name in “Your name” to see the tasks assigned to you.</p>` : null}
    <${ErrorNote} message=${polled.error} />
    ${polled.loading && !listed && !needsName ? html`<${Loading} />` : null}
    ${listed && listed.page.items.length === 0 ? html`<p role="status">No task here.</p>` : null}
    ${
      listed?.kind === 'open' && listed.page.items.length > 0
        ? html`<${DataTable} caption="Tasks, oldest first" columns=${OPEN_COLUMNS} rows=${listed.page.items} rowKey=${(task: Task) => task.id} />`
        : null
    }
    ${
      listed?.kind === 'completed' && listed.page.items.length > 0
        ? html`<${DataTable}
            caption="Completed tasks, newest first"
            columns=${COMPLETED_COLUMNS}
            rows=${listed.page.items}
            rowKey=${(task: CompletedTask) => task.id}
          />`
        : null
    }
    ${listed && listed.page.items.length > 0 ? html`<${PagerNav} pager=${pager} nextCursor=${listed.page.nextCursor} label="Task pages" />` : null}`;
}
