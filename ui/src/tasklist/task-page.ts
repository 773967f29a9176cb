// /tasklist/tasks/<id>: one open human task in its process context (the diagram
// with the task's element marked, the variables it sees), with Claim (as
// "Your name"), Unclaim, Assign and Complete. Completion goes through
// GraphQL completeTask, which is free (SPEC.md), and the page says so; the
// "Variables (JSON)" editor must hold a JSON object before it is sent.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, apiText, ApiProblem, graphql } from '../common/api.ts';
import { Diagram } from '../common/diagram.ts';
import { JsonBlock, StateTag, When } from '../common/format.ts';
import { href, Link, navigate } from '../common/router.ts';
import { ErrorNote, Loading } from '../common/shell.ts';
import { useTitle } from '../common/page.ts';
import { usePoll } from '../common/poll.ts';
import type { Task } from '../common/types.ts';
import { parseVariables } from './variables-editor.ts';
import { useYourName, YourNameField } from './your-name.ts';

const COMPLETE = /* GraphQL */ `
  mutation Complete($id: ID!, $variables: JSON) {
    completeTask(id: $id, variables: $variables) {
      id
      completed
    }
  }
`;

export function TaskPage(props: { taskId: string }) {
  const id = props.taskId;
  const [name] = useYourName();
  const [completed, setCompleted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [assignee, setAssignee] = useState('');
  const [text, setText] = useState('{}');
  const parsed = parseVariables(text);
  const base = `/api/v1/tasks/${encodeURIComponent(id)}`;
  const polled = usePoll(async () => {
    if (completed) return undefined;
    try {
      return await api<Task>(base);
    } catch (error) {
      // A link to a task completed since: its read-only page.
      if (error instanceof ApiProblem && error.status === 404 && (await api(`/api/v1/completed-tasks/${encodeURIComponent(id)}`).catch(() => null))) {
        navigate(href(`completed/${id}`), { replace: true });
        return undefined;
      }
      throw error;
    }
  }, [id, completed]);
  const task = polled.data;
  useTitle(task ? `Task ${task.elementId}` : `Task ${id}`, 'task list');
  const xml = usePoll(
    async () => (task ? apiText(`/api/v1/process-definitions/${encodeURIComponent(task.bpmnProcessId)}/xml`, { query: { version: task.version } }) : undefined),
    [task?.bpmnProcessId, task?.version],
    0,
  );

  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    setActionError(null);
    setNote(null);
    try {
      setNote(await what());
    } catch (error) {
      setActionError((error as Error).message);
    } finally {
      setBusy(false);
      await polled.reload();
    }
  };
  const claim = () =>
    act(async () => {
      if (name === '') throw new ApiProblem(400, 'Type your name in “Your name” first: a claim is made in that name.');
      await api(`${base}/claim`, { method: 'POST', json: { assignee: name } });
      return `You (${name}) claimed this task.`;
    });
  const unclaim = () =>
    act(async () => {
      await api(`${base}/assign`, { method: 'POST', json: { assignee: null } });
      return 'The task is back in the pool, unassigned.';
    });
  const assign = (event: Event) => {
    event.preventDefault();
    return act(async () => {
      const to = assignee.trim();
      if (to === '') throw new ApiProblem(400, 'Type the name of the person to assign the task to.');
      await api(`${base}/assign`, { method: 'POST', json: { assignee: to } });
      setAssignee('');
      return `The task is assigned to ${to}.`;
    });
  };
  const complete = (event: Event) => {
    event.preventDefault();
    if ('error' in parsed) {
      setActionError(`Nothing was sent. ${parsed.error}`);
      return;
    }
    return act(async () => {
      await graphql(COMPLETE, { id, variables: parsed.variables });
      setCompleted(true);
      return 'The task is completed. Its instance has moved on.';
    });
  };

  if (completed)
    return html`<h1>Task ${id} completed</h1>
      ${note ? html`<p class="notice" role="status">${note}</p>` : null}
      <p><${Link} to=${href(`completed/${id}`)}>See the completed task<//></p>
      <p><${Link} to=${href('')}>Back to the tasks<//></p>`;

  if (!task)
    return html`<h1>Task ${id}</h1>
      ${polled.loading ? html`<${Loading} />` : null}
      <${ErrorNote} message=${polled.error} />
      <p><${Link} to=${href('')}>Back to the tasks<//></p>`;

  const editorError = 'error' in parsed ? parsed.error : null;
  return html`<h1>Task ${task.elementId}</h1>
    <${ErrorNote} message=${polled.error} />
    <dl class="facts">
      <dt>Task id</dt>
      <dd>${task.id}</dd>
      <dt>Process</dt>
      <dd>${task.bpmnProcessId} version ${task.version}</dd>
      <dt>Instance</dt>
      <dd><a href=${`/console/instances/${task.processInstanceKey}`}>${task.processInstanceKey}</a></dd>
      <dt>Assignee</dt>
      <dd data-testid="assignee">${task.assignee || 'Unassigned'}</dd>
      <dt>State</dt>
      <dd><${StateTag} state=${task.state} /></dd>
      <dt>Created</dt>
      <dd><${When} iso=${task.createdAt} /></dd>
    </dl>
    <${YourNameField} />
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Work on it</h2>
      <div class="actions">
        <button type="button" disabled=${busy} onClick=${claim}>Claim</button>
        <button type="button" class="secondary" disabled=${busy || !task.assignee} onClick=${unclaim}>Unclaim</button>
      </div>
      <form class="inline" onSubmit=${assign}>
        <label for="assignee">Assignee</label>
        <input id="assignee" value=${assignee} maxlength="255" onInput=${(e: Event) => setAssignee((e.target as HTMLInputElement).value)} />
        <button type="submit" class="secondary" disabled=${busy}>Assign</button>
      </form>
      <form onSubmit=${complete} novalidate>
        <label for="variables">Variables (JSON)</label>
        <textarea
          id="variables"
          rows="6"
          spellcheck=${false}
          value=${text}
          aria-invalid=${editorError ? 'true' : 'false'}
          aria-describedby="variables-help${editorError ? ' variables-error' : ''}"
          onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
        ></textarea>
        <p id="variables-help" class="help">A JSON object merged into the instance's variables when you complete the task.</p>
        ${editorError ? html`<p id="variables-error" class="error">${editorError}</p>` : null}
        <p class="help">Completing here is free: the task list uses GraphQL <code>completeTask</code>, which costs no credit.</p>
        <button type="submit" disabled=${busy}>Complete</button>
      </form>
      ${note ? html`<p class="notice" role="status">${note}</p>` : null}
      <${ErrorNote} message=${actionError} />
    </section>
    <section aria-labelledby="diagram-heading">
      <h2 id="diagram-heading">Diagram</h2>
      <${Diagram}
        xml=${xml.data}
        marks=${{ elements: [{ elementId: task.elementId, active: 1, incidents: task.state === 'FAILED' ? 1 : 0, completed: 0, canceled: 0 }] }}
        selected=${task.elementId}
        label=${`Process ${task.bpmnProcessId} version ${task.version}; this task is ${task.elementId}.`}
      />
      <${ErrorNote} message=${xml.error} />
    </section>
    <section aria-labelledby="variables-heading">
      <h2 id="variables-heading">Variables</h2>
      <${JsonBlock} value=${task.variables ?? {}} label="The variables this task sees, as JSON" />
    </section>`;
}
