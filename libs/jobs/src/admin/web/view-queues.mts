import { html } from 'htm/preact';
import { useRef } from 'preact/hooks';
import { NoteLine, useActions } from './actions.mjs';
import { get, type Session } from './api.mjs';
import { Chart } from './chart.mjs';
import { go, usePoll } from './hooks.mjs';
import { PauseButton } from './pause-button.mjs';
import { duration, JOB_STATES, type CounterBucket, type QueueView } from './types.mjs';

const KEEP = 120;

interface Sample {
  readonly at: number;
  readonly queues: readonly QueueView[];
}

/** Per-minute done and failed runs of every declared job over the last hour, summed per minute. */
async function throughput(): Promise<{ xs: number[]; done: number[]; failed: number[] }> {
  const manifest = await get<{ jobs: readonly { name: string }[] }>('manifest');
  const sinceMs = Date.now() - 3_600_000;
  const all = await Promise.all(
    manifest.jobs
      .slice(0, 50)
      .map((j) => get<CounterBucket[]>('counters', { job: j.name, sinceMs })),
  );
  const byMinute = new Map<number, { done: number; failed: number }>();
  for (const buckets of all) {
    for (const b of buckets) {
      if (b.bucketMs !== 60_000) continue;
      const slot = byMinute.get(b.bucketStart) ?? { done: 0, failed: 0 };
      slot.done += b.done;
      slot.failed += b.failed + b.dead;
      byMinute.set(b.bucketStart, slot);
    }
  }
  // every minute of the hour, zero where no run settled, so the axis is the hour whatever ran
  const first = Math.floor(sinceMs / 60_000) * 60_000;
  const keys: number[] = [];
  for (let k = first; k <= Date.now(); k += 60_000) keys.push(k);
  return {
    xs: keys.map((k) => k / 1000),
    done: keys.map((k) => byMinute.get(k)?.done ?? 0),
    failed: keys.map((k) => byMinute.get(k)?.failed ?? 0),
  };
}

/** Queues: counts per state, pause, and charts of depth, oldest-ready age and throughput. */
export function QueuesView(props: { readonly session: Session }) {
  const samples = useRef<Sample[]>([]);
  const queues = usePoll(
    async () => {
      const list = await get<QueueView[]>('queues');
      samples.current = [...samples.current, { at: Date.now() / 1000, queues: list }].slice(-KEEP);
      return list;
    },
    'queues',
    props.session.pollMs,
  );
  const rate = usePoll(throughput, 'rate', Math.max(10_000, props.session.pollMs));
  const names = (queues.data ?? []).map((q) => q.queue);
  const xs = samples.current.map((s) => s.at);
  const seriesOf = (pick: (q: QueueView) => number) =>
    names.map((name) => ({
      label: name,
      values: samples.current.map((s) => {
        const q = s.queues.find((x) => x.queue === name);
        return q === undefined ? null : pick(q);
      }),
    }));
  const actions = useActions(queues.reload);
  return html`<section>
    <h2>Queues</h2>
    <${NoteLine} note=${actions.note} />
    ${queues.error && html`<p class="error">${queues.error}</p>`}
    <table data-testid="queues">
      <thead>
        <tr>
          <th>queue</th>
          ${JOB_STATES.map((s) => html`<th>${s}</th>`)}
          <th>oldest ready</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${(queues.data ?? []).map(
          (q) =>
            html`<tr
              key=${q.queue}
              data-testid=${`queue-${q.queue}`}
              class=${q.paused ? 'paused' : ''}
            >
              <td>
                ${q.queue}${q.paused ? html` <span class="badge" data-testid="paused">paused</span>` : ''}
              </td>
              ${JOB_STATES.map(
                (s) =>
                  html`<td data-testid=${`count-${s}`}>
                    <a
                      href="#"
                      onClick=${(e: Event) => (e.preventDefault(), go('jobs', undefined, { queue: q.queue, state: s }))}
                      >${q[s]}</a
                    >
                  </td>`,
              )}
              <td>${duration(q.oldestReadyMs)}</td>
              <td>
                <${PauseButton}
                  kind="queue"
                  name=${q.queue}
                  paused=${q.paused}
                  canWrite=${props.session.canWrite}
                  actions=${actions}
                />
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <div class="charts">
      <${Chart}
        testid="chart-depth"
        title="Depth (ready + delayed + running)"
        xs=${xs}
        series=${seriesOf((q) => q.ready + q.delayed + q.running)}
      />
      <${Chart}
        testid="chart-oldest"
        title="Oldest ready (s)"
        xs=${xs}
        series=${seriesOf((q) => q.oldestReadyMs / 1000)}
      />
      <${Chart}
        testid="chart-rate"
        title="Runs per minute (last hour, from the counters)"
        xs=${rate.data?.xs ?? []}
        series=${[
          { label: 'done', values: rate.data?.done ?? [] },
          { label: 'failed or dead', values: rate.data?.failed ?? [] },
        ]}
      />
    </div>
  </section>`;
}
