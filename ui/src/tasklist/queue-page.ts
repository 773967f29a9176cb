// /tasklist/: the human tasks, oldest first (by creation), filtered: all
// open, assigned to me ("Your name"), unassigned, or completed. Completed
// tasks are not kept by the API (a task is a `userTask` job, removed once
// done), so that filter says where to look instead: the instance's element
// history in the console.
import { html } from 'htm/preact';
import { api } from '../common/api.ts';
import { StateTag, When } from '../common/format.ts';
import { href, Link, navigate } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { PagerNav, usePager, useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import type { Page, Task } from '../common/types.ts';
import { useYourName, YourNameField } from './your-name.ts';

const FILTERS = [
  ['open', 'All open'],
  ['mine', 'Assigned to me'],
  ['unassigned', 'Unassigned'],
  ['completed', 'Completed'],
] as const;

export function QueuePage(props: { query: URLSearchParams }) {
  useTitle('Tasks', 'task list');
  const [name] = useYourName();
  const filter = FILTERS.some(([value]) => value === props.query.get('filter')) ? props.query.get('filter')! : 'open';
  const pager = usePager([filter, name]);
  const needsName = filter === 'mine' && name === '';
  const polled = usePoll(async () => {
    if (filter === 'completed' || needsName) return undefined;
    return api<Page<Task>>('/api/v1/tasks', {
      query: {
        'filter.assignee': filter === 'mine' ? name : undefined,
        'filter.assigned': filter === 'unassigned' ? 'false' : undefined,
        limit: 25,
        cursor: pager.cursor,
      },
    });
  }, [filter, name, pager.cursor]);

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
    ${
      filter === 'completed'
        ? html`<p role="status">
            Completed tasks are not kept as tasks: once completed, a task is part of its instance's element history. Open the instance in the
            <a href="/console/instances">console</a> to see who did what and when.
          </p>`
        : null
    }
    ${needsName ? html`<p role="status">Type your name in “Your name” to see the tasks assigned to you.</p>` : null}
    <${ErrorNote} message=${polled.error} />
    ${polled.loading && !polled.data && filter !== 'completed' && !needsName ? html`<${Loading} />` : null}
    ${polled.data && polled.data.items.length === 0 ? html`<p role="status">No task here.</p>` : null}
    ${
      polled.data && polled.data.items.length > 0
        ? html`<table>
              <caption>
                Tasks, oldest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Process</th>
                  <th scope="col">Instance</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                ${polled.data.items.map(
                  (task) =>
                    html`<tr>
                      <th scope="row"><${Link} to=${href(`tasks/${task.id}`)}>${task.elementId} (${task.id})<//></th>
                      <td>${task.bpmnProcessId} v${task.version}</td>
                      <td><a href=${`/console/instances/${task.processInstanceKey}`}>${task.processInstanceKey}</a></td>
                      <td>${task.assignee || html`<span class="muted">Unassigned</span>`}</td>
                      <td><${StateTag} state=${task.state} /></td>
                      <td><${When} iso=${task.createdAt} /></td>
                    </tr>`,
                )}
              </tbody>
            </table>
            <${PagerNav} pager=${pager} nextCursor=${polled.data.nextCursor} label="Task pages" />`
        : null
    }`;
}
