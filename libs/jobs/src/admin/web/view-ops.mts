import { html } from 'htm/preact';
import { NoteLine, useActions } from './actions.mjs';
import { get, type Session } from './api.mjs';
import { usePoll } from './hooks.mjs';
import { PauseButton } from './pause-button.mjs';
import { duration, when, type BackfillPass, type TaskView, type WorkerView } from './types.mjs';

/** Live workers: host, pid, slots per queue, last heartbeat and the jobs each holds. */
export function WorkersView(props: { readonly session: Session }) {
  const workers = usePoll(() => get<WorkerView[]>('workers'), 'workers', props.session.pollMs);
  return html`<section>
    <h2>Workers</h2>
    ${workers.error && html`<p class="error">${workers.error}</p>`}
    <table data-testid="workers">
      <thead>
        <tr>
          <th>worker</th>
          <th>host</th>
          <th>pid</th>
          <th>up</th>
          <th>slots</th>
          <th>heartbeat</th>
          <th>in flight</th>
        </tr>
      </thead>
      <tbody>
        ${(workers.data ?? []).map(
          (w) =>
            html`<tr key=${w.id} data-testid=${`worker-${w.id}`}>
              <td>${w.id}</td>
              <td>${w.host}</td>
              <td>${w.pid ?? '—'}</td>
              <td>${duration(Date.now() - w.startedAt)}</td>
              <td>
                ${Object.entries(w.slots)
                  .map(([q, n]) => `${q}×${n}`)
                  .join(', ')}
              </td>
              <td>${duration(Math.max(0, Date.now() - w.heartbeatAt))} ago</td>
              <td data-testid="in-flight">
                ${w.inFlight.map((id) => html`<a href=${`#/job/${id}`}>${id.slice(0, 8)}</a> `)}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/** Tasks: schedule, last and next fire, pause and resume. */
export function TasksView(props: { readonly session: Session }) {
  const tasks = usePoll(() => get<TaskView[]>('tasks'), 'tasks', props.session.pollMs);
  const actions = useActions(tasks.reload);
  return html`<section>
    <h2>Tasks</h2>
    <${NoteLine} note=${actions.note} />
    ${tasks.error && html`<p class="error">${tasks.error}</p>`}
    <table data-testid="tasks">
      <thead>
        <tr>
          <th>task</th>
          <th>cron</th>
          <th>jobs</th>
          <th>last fire</th>
          <th>next</th>
          <th>state</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${(tasks.data ?? []).map(
          (t) =>
            html`<tr key=${t.name} data-testid=${`task-${t.name}`}>
              <td>${t.name}${t.declared ? '' : ' (undeclared)'}</td>
              <td>${t.cron ?? '—'} ${t.tz ?? ''}</td>
              <td>${t.jobs.join(', ')}</td>
              <td>${when(t.lastFire?.occurrenceMs ?? null)}</td>
              <td>${when(t.next)}</td>
              <td data-testid="task-state">${t.paused ? 'paused' : 'active'}</td>
              <td>
                <${PauseButton}
                  kind="task"
                  name=${t.name}
                  paused=${t.paused}
                  canWrite=${props.session.canWrite}
                  actions=${actions}
                />
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

interface BackfillsAnswer {
  readonly available: boolean;
  readonly environment: string;
  readonly declared: readonly {
    readonly name: string;
    readonly state: string;
    readonly checksumMoved: boolean;
    readonly lastRunId: string | null;
  }[];
  readonly pending: readonly string[];
  readonly passes: readonly BackfillPass[];
}

/** The backfill ledger: the declared sweeps against it (pending ones first), then every pass, running ones on top. */
export function BackfillsView(props: { readonly session: Session }) {
  const ledger = usePoll(
    () => get<BackfillsAnswer>('backfills'),
    'backfills',
    props.session.pollMs,
  );
  const data = ledger.data;
  if (data && !data.available)
    return html`<section>
      <h2>Backfills</h2>
      <p>This backend keeps no backfill ledger.</p>
    </section>`;
  const passes = [...(data?.passes ?? [])].sort(
    (a, b) => Number(b.status === 'running') - Number(a.status === 'running'),
  );
  const declared = [...(data?.declared ?? [])].sort(
    (a, b) => Number(data?.pending.includes(b.name)) - Number(data?.pending.includes(a.name)),
  );
  return html`<section>
    <h2>Backfills</h2>
    ${ledger.error && html`<p class="error">${ledger.error}</p>`}
    <h3>
      Declared by this app (${data?.environment ?? ''}): ${data?.pending.length ?? 0} not swept
    </h3>
    <table data-testid="backfills-declared">
      <thead>
        <tr>
          <th>name</th>
          <th>state</th>
          <th>last pass</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${declared.map(
          (d) =>
            html`<tr
              key=${d.name}
              data-testid=${`declared-${d.name}`}
              class=${data?.pending.includes(d.name) ? 'paused' : ''}
            >
              <td>${d.name}</td>
              <td data-testid="declared-state">${d.state}</td>
              <td>${d.lastRunId ?? '—'}</td>
              <td>${d.checksumMoved ? 'checksum moved since the completed pass' : ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h3>Passes</h3>
    <table data-testid="backfills">
      <thead>
        <tr>
          <th>name</th>
          <th>status</th>
          <th>rows</th>
          <th>batches</th>
          <th>job</th>
          <th>started</th>
          <th>updated</th>
          <th>completed</th>
          <th>error</th>
        </tr>
      </thead>
      <tbody>
        ${passes.map(
          (p) =>
            html`<tr key=${p.id} data-testid=${`backfill-${p.name}`}>
              <td>${p.name}</td>
              <td>${p.status}</td>
              <td>${p.rows}</td>
              <td>${p.batches}</td>
              <td>
                ${p.jobId ? html`<a href=${`#/job/${p.jobId}`}>${p.jobId.slice(0, 8)}</a>` : '—'}
              </td>
              <td>${p.startedAt}</td>
              <td>${p.updatedAt}</td>
              <td>${p.completedAt ?? '—'}</td>
              <td>${p.lastError ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
