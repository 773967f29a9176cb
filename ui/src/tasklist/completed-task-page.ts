// /tasklist/completed/<id>: a completed human task, read-only (the
// completed-tasks extension route): who held it, when it was created and
// completed, the diagram with its element marked completed, and its
// instance's variables as they are now. Nothing here can change it.
import { html } from 'htm/preact';
import { api, apiText } from '../common/api.ts';
import { Diagram } from '../common/diagram.ts';
import { JsonBlock, StateTag, When } from '../common/format.ts';
import { href, Link } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import type { CompletedTask, InstanceSummary } from '../common/types.ts';

export function CompletedTaskPage(props: { taskId: string }) {
  const id = props.taskId;
  const polled = usePoll(() => api<CompletedTask>(`/api/v1/completed-tasks/${encodeURIComponent(id)}`), [id], 0);
  const task = polled.data;
  useTitle(task ? `Completed task ${task.elementId}` : `Task ${id}`, 'task list');
  const instance = usePoll(
    async () => (task ? api<InstanceSummary>(`/api/v1/process-instances/${encodeURIComponent(task.processInstanceKey)}`) : undefined),
    [task?.processInstanceKey],
  );
  const xml = usePoll(
    async () => (task ? apiText(`/api/v1/process-definitions/${encodeURIComponent(task.bpmnProcessId)}/xml`, { query: { version: task.version } }) : undefined),
    [task?.bpmnProcessId, task?.version],
    0,
  );

  if (!task)
    return html`<h1>Task ${id}</h1>
      ${polled.loading ? html`<${Loading} />` : null}
      <${ErrorNote} message=${polled.error} />
      <p><${Link} to=${href('', { filter: 'completed' })}>Back to the completed tasks<//></p>`;

  return html`<h1>Task ${task.elementId} (completed)</h1>
    <p>This task is done: it can no longer be claimed, assigned or completed. What it changed is in its instance.</p>
    <dl class="facts">
      <dt>Task id</dt>
      <dd>${task.id}</dd>
      <dt>Process</dt>
      <dd>${task.bpmnProcessId} version ${task.version}</dd>
      <dt>Instance</dt>
      <dd><a href=${`/console/instances/${task.processInstanceKey}`}>${task.processInstanceKey}</a></dd>
      <dt>Completed by</dt>
      <dd data-testid="completed-by">${task.assignee || 'Nobody held it (unassigned)'}</dd>
      <dt>State</dt>
      <dd><${StateTag} state=${task.state} /></dd>
      <dt>Created</dt>
      <dd><${When} iso=${task.createdAt} /></dd>
      <dt>Completed</dt>
      <dd><${When} iso=${task.completedAt} /></dd>
    </dl>
    <p><${Link} to=${href('', { filter: 'completed' })}>Back to the completed tasks<//></p>
    <section aria-labelledby="diagram-heading">
      <h2 id="diagram-heading">Diagram</h2>
      <${Diagram}
        xml=${xml.data}
        marks=${{ elements: [{ elementId: task.elementId, active: 0, incidents: 0, completed: 1, canceled: 0 }] }}
        selected=${task.elementId}
        label=${`Process ${task.bpmnProcessId} version ${task.version}; this completed task is ${task.elementId}.`}
      />
      <${ErrorNote} message=${xml.error} />
    </section>
    <section aria-labelledby="variables-heading">
      <h2 id="variables-heading">Variables</h2>
      <p class="help">The instance's variables as they are now, not as they were when the task was completed.</p>
      <${ErrorNote} message=${instance.error} />
      ${instance.data ? html`<${JsonBlock} value=${instance.data.variables} label="The instance's variables now, as JSON" />` : null}
    </section>`;
}
