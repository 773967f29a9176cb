// The task list's entry point (ui/tasklist/index.html): the queue and the
// task pages under /tasklist/, inside the shared frame that signs in first.
import '../common/styles.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { NotFoundPage } from '../common/page.ts';
import { href, setBase, useRoute } from '../common/router.ts';
import { Shell } from '../common/shell.ts';
import { QueuePage } from './queue-page.ts';
import { CompletedTaskPage } from './completed-task-page.ts';
import { TaskPage } from './task-page.ts';

setBase('/tasklist/');

function App() {
  const route = useRoute();
  const [section = '', id, ...rest] = route.segments;
  const page = () => {
    if (section === '' && id === undefined) return html`<${QueuePage} query=${route.query} />`;
    if (section === 'tasks' && id !== undefined && rest.length === 0) return html`<${TaskPage} key=${id} taskId=${id} />`;
    if (section === 'completed' && id !== undefined && rest.length === 0) return html`<${CompletedTaskPage} key=${id} taskId=${id} />`;
    return html`<${NotFoundPage} app="task list" />`;
  };
  const nav = [{ label: 'Tasks', to: href(''), current: section === '' }];
  return html`<${Shell} appName="task list" nav=${nav} other=${{ label: 'Console', to: '/console/' }}>${page}<//>`;
}

render(html`<${App} />`, document.getElementById('app')!);
