// The console's entry point (ui/console/index.html): its pages by address
// under /console/, inside the shared frame that signs the user in first.
import '../common/styles.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { NotFoundPage } from '../common/page.ts';
import { href, setBase, useRoute } from '../common/router.ts';
import { Shell } from '../common/shell.ts';
import { DefinitionPage } from './definition-page.ts';
import { DefinitionsPage } from './definitions-page.ts';
import { IncidentsPage } from './incidents-page.ts';
import { InstancePage } from './instance-page.ts';
import { InstancesPage } from './instances-page.ts';

setBase('/console/');

function App() {
  const route = useRoute();
  const [section = '', id, ...rest] = route.segments;
  const page = () => {
    if (rest.length > 0) return html`<${NotFoundPage} app="console" />`;
    if (section === '' || (section === 'definitions' && id === undefined)) return html`<${DefinitionsPage} />`;
    if (section === 'definitions') return html`<${DefinitionPage} key=${id} id=${id} version=${route.query.get('version')} />`;
    if (section === 'instances' && id === undefined) return html`<${InstancesPage} query=${route.query} />`;
    if (section === 'instances') return html`<${InstancePage} key=${id} instanceKey=${id} />`;
    if (section === 'incidents' && id === undefined) return html`<${IncidentsPage} query=${route.query} />`;
    return html`<${NotFoundPage} app="console" />`;
  };
  const nav = [
    { label: 'Process definitions', to: href(''), current: section === '' || section === 'definitions' },
    { label: 'Instances', to: href('instances'), current: section === 'instances' },
    { label: 'Incidents', to: href('incidents'), current: section === 'incidents' },
  ];
  return html`<${Shell} appName="console" nav=${nav} other=${{ label: 'Task list', to: '/tasklist/' }}>${page}<//>`;
}

render(html`<${App} />`, document.getElementById('app')!);
