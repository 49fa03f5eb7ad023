import 'uplot/dist/uPlot.min.css';
import './admin.css';
import { html, render } from 'htm/preact';
import { useRoute, useSession } from './hooks.mjs';
import { JobView } from './view-job.mjs';
import { JobsView } from './view-jobs.mjs';
import { BackfillsView, TasksView, WorkersView } from './view-ops.mjs';
import { QueuesView } from './view-queues.mjs';

const NAV = [
  ['queues', 'Queues'],
  ['jobs', 'Jobs'],
  ['dead', 'Dead letters'],
  ['workers', 'Workers'],
  ['tasks', 'Tasks'],
  ['backfills', 'Backfills'],
] as const;

function App() {
  const { session, error } = useSession();
  const route = useRoute();
  if (session === null)
    return error === null
      ? html`<p>Loading…</p>`
      : html`<p class="error" data-testid="session-error">${error} (trying again)</p>`;
  const view =
    route.view === 'job' && route.arg
      ? html`<${JobView} session=${session} id=${route.arg} />`
      : route.view === 'jobs' || route.view === 'dead'
        ? html`<${JobsView} session=${session} route=${route} />`
        : route.view === 'workers'
          ? html`<${WorkersView} session=${session} />`
          : route.view === 'tasks'
            ? html`<${TasksView} session=${session} />`
            : route.view === 'backfills'
              ? html`<${BackfillsView} session=${session} />`
              : html`<${QueuesView} session=${session} />`;
  return html`<div class="shell">
    <nav>
      <strong>Jobs</strong>
      ${NAV.map(([v, label]) => html`<a href=${`#/${v}`} class=${route.view === v ? 'active' : ''} data-testid=${`nav-${v}`}>${label}</a>`)}
      <span class="who" data-testid="mode"
        >${session.canWrite ? 'read and write' : 'read only'}</span
      >
    </nav>
    <main>${view}</main>
  </div>`;
}

const root = document.getElementById('app');
if (root) render(html`<${App} />`, root);
