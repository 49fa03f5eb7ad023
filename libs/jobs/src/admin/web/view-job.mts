import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { NoteLine, useActions } from './actions.mjs';
import { get, post, type Session } from './api.mjs';
import { usePoll } from './hooks.mjs';
import { duration, when, type JobDetail, type StepView } from './types.mjs';

const FINISHED = ['done', 'failed', 'dead', 'cancelled'];
const LIVE = ['ready', 'delayed', 'running', 'suspended'];

/**
 * The step timeline: one bar per completed step, placed on the run's time axis, with the attempt that ran it, how
 * many later attempts replayed its stored result, and its duration.
 */
function Timeline(props: { readonly steps: readonly StepView[] }) {
  const steps = props.steps;
  if (steps.length === 0) return html`<p data-testid="no-steps">No completed steps.</p>`;
  const start = Math.min(...steps.map((s) => s.startedAt));
  const end = Math.max(...steps.map((s) => s.completedAt));
  const span = Math.max(1, end - start);
  return html`<table class="timeline" data-testid="steps">
    <thead>
      <tr>
        <th>step</th>
        <th>attempt</th>
        <th>replays</th>
        <th>duration</th>
        <th class="bar-cell">timeline</th>
      </tr>
    </thead>
    <tbody>
      ${steps.map(
        (s) =>
          html`<tr key=${s.name} data-testid=${`step-${s.name}`}>
            <td>${s.name}</td>
            <td>${s.attempt}</td>
            <td data-testid=${`replays-${s.name}`}>${s.replays}</td>
            <td>${duration(s.durationMs)}</td>
            <td class="bar-cell">
              <div
                class="bar"
                style=${{
                  marginLeft: `${((s.startedAt - start) / span) * 100}%`,
                  width: `${Math.max(0.5, (s.durationMs / span) * 100)}%`,
                }}
                title=${`${when(s.startedAt)} → ${when(s.completedAt)}`}
              ></div>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function Progress(props: { readonly job: JobDetail }) {
  const p = props.job.progress;
  if (p === null) return html`<p>—</p>`;
  const pct =
    typeof p.done === 'number' && typeof p.total === 'number' && p.total > 0
      ? Math.min(100, (p.done / p.total) * 100)
      : null;
  return html`<div data-testid="progress">
    ${pct === null ? '' : html`<progress max="100" value=${pct}></progress> ${pct.toFixed(0)}%`}
    <pre>${JSON.stringify(p, null, 2)}</pre>
  </div>`;
}

/** One job: its row, step timeline, redacted input, failure with stack, progress, and (when allowed) its actions. */
export function JobView(props: { readonly session: Session; readonly id: string }) {
  const job = usePoll(
    () => get<JobDetail>(`jobs/${encodeURIComponent(props.id)}`),
    props.id,
    props.session.pollMs,
  );
  const [fromStep, setFromStep] = useState('');
  const { note, act: send } = useActions(job.reload);
  const act = (path: string, body: unknown, label: string) => send(() => post(path, body), label);
  const j = job.data;
  if (j === undefined)
    return html`<section>
      ${job.error ? html`<p class="error">${job.error}</p>` : 'Loading…'}
    </section>`;
  const write = props.session.canWrite;
  return html`<section>
    <h2>${j.name} <span class=${`state ${j.state}`} data-testid="job-state">${j.state}</span></h2>
    <${NoteLine} note=${note} />
    <dl class="facts">
      <dt>id</dt>
      <dd data-testid="job-id">${j.id}</dd>
      <dt>queue</dt>
      <dd>${j.queue}</dd>
      <dt>attempt</dt>
      <dd>${j.attempt} of ${j.maxAttempts}</dd>
      <dt>tenant</dt>
      <dd>${j.tenantId ?? '—'}</dd>
      <dt>key</dt>
      <dd>${j.idempotencyKey}</dd>
      <dt>created</dt>
      <dd>${when(j.createdAt)}</dd>
      <dt>run at</dt>
      <dd>${when(j.runAt)}</dd>
      <dt>finished</dt>
      <dd>${when(j.finishedAt)}</dd>
      <dt>worker</dt>
      <dd>${j.workerId ?? '—'}</dd>
      ${
        j.backfill
          ? html`<dt>backfill</dt>
              <dd>${j.backfill.name}: ${j.backfill.status}, ${j.backfill.rows} rows</dd>`
          : ''
      }
    </dl>
    ${
      write
        ? html`<div class="actions">
            ${
              FINISHED.includes(j.state)
                ? html`<button
                      data-testid="retry"
                      onClick=${() => act(`jobs/${j.id}/retry`, {}, 'retry sent')}
                    >
                      Retry
                    </button>
                    <select
                      data-testid="from-step"
                      value=${fromStep}
                      onChange=${(e: Event) => setFromStep((e.target as HTMLSelectElement).value)}
                    >
                      <option value="">from step…</option>
                      ${j.steps.map((s) => html`<option value=${s.name}>${s.name}</option>`)}
                    </select>
                    <button
                      data-testid="retry-from-step"
                      disabled=${fromStep === ''}
                      onClick=${() => act(`jobs/${j.id}/retry`, { fromStep }, `retry from ${fromStep} sent`)}
                    >
                      Retry from step
                    </button>`
                : ''
            }
            ${
              LIVE.includes(j.state)
                ? html`<button
                    data-testid="cancel"
                    onClick=${() => act(`jobs/${j.id}/cancel`, { reason: 'cancelled from the admin page' }, 'cancel sent')}
                  >
                    Cancel
                  </button>`
                : ''
            }
          </div>`
        : ''
    }
    <h3>Progress</h3>
    <${Progress} job=${j} />
    <h3>Steps</h3>
    <${Timeline} steps=${j.steps} />
    ${
      j.failure
        ? html`<h3>Error</h3>
            <div class="failure" data-testid="failure">
              <p><code>${j.failure.code ?? ''}</code> ${j.failure.message}</p>
              ${j.failure.stack ? html`<pre data-testid="stack">${j.failure.stack}</pre>` : ''}
            </div>`
        : ''
    }
    <h3>
      Input
      ${j.redacted && j.redacted.length > 0 ? html`<small>(redacted: ${j.redacted.join(', ')})</small>` : ''}
    </h3>
    <pre data-testid="input">${JSON.stringify(j.input, null, 2)}</pre>
  </section>`;
}
