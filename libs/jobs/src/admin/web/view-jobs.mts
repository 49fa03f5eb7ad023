import { html } from 'htm/preact';
import { NoteLine, useActions } from './actions.mjs';
import { get, post, type Session } from './api.mjs';
import { go, usePoll, type Route } from './hooks.mjs';
import { when, JOB_STATES, type JobPage, type JobSummary } from './types.mjs';

const FILTERS = [
  'queue',
  'name',
  'state',
  'tenantId',
  'idPrefix',
  'createdFrom',
  'createdTo',
  'limit',
] as const;

/** The list filters a bulk call cannot apply, with how the form labels them. */
const BULK_CANNOT_APPLY: Readonly<Record<string, string>> = {
  idPrefix: 'id prefix',
  createdFrom: 'created from',
  createdTo: 'created to',
};

function queryOf(route: Route): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const key of [...FILTERS, 'after', 'before']) out[key] = route.query.get(key) ?? undefined;
  return out;
}

/** A date-time input's value as epoch ms text (the API's `createdFrom` / `createdTo`). */
const toMs = (local: string): string | undefined =>
  local ? String(new Date(local).getTime()) : undefined;
const fromMs = (ms: string | undefined): string => {
  if (!ms) return '';
  const d = new Date(Number(ms));
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function Filters(props: {
  readonly view: string;
  readonly query: Record<string, string | undefined>;
}) {
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const next: Record<string, string | undefined> = {};
    for (const key of FILTERS) {
      const value = String(form.get(key) ?? '');
      next[key] = key === 'createdFrom' || key === 'createdTo' ? toMs(value) : value || undefined;
    }
    go(props.view, undefined, next);
  };
  const q = props.query;
  return html`<form class="filters" onSubmit=${submit} data-testid="filters">
    <input name="queue" placeholder="queue" value=${q.queue ?? ''} />
    <input name="name" placeholder="job name" value=${q.name ?? ''} />
    ${
      props.view === 'jobs'
        ? html`<select name="state" value=${q.state ?? ''}>
            <option value="">any state</option>
            ${JOB_STATES.map((s) => html`<option value=${s}>${s}</option>`)}
          </select>`
        : ''
    }
    <input name="tenantId" placeholder="tenant" value=${q.tenantId ?? ''} />
    <input name="idPrefix" placeholder="id prefix" value=${q.idPrefix ?? ''} />
    <label
      >from <input type="datetime-local" name="createdFrom" value=${fromMs(q.createdFrom)}
    /></label>
    <label>to <input type="datetime-local" name="createdTo" value=${fromMs(q.createdTo)} /></label>
    <input name="limit" type="number" min="1" max="200" placeholder="100" value=${q.limit ?? ''} />
    <button type="submit">Filter</button>
  </form>`;
}

/** A page of jobs as a table; `actions` adds a cell per row (the dead-letter queue's retry). */
export function JobTable(props: {
  readonly page: JobPage | undefined;
  readonly actions?: (job: JobSummary) => unknown;
}) {
  return html`<table data-testid="jobs">
    <thead>
      <tr>
        <th>id</th>
        <th>name</th>
        <th>queue</th>
        <th>state</th>
        <th>attempt</th>
        <th>created</th>
        <th>error</th>
        ${props.actions ? html`<th></th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${(props.page?.jobs ?? []).map(
        (j) =>
          html`<tr key=${j.id} data-testid=${`job-${j.id}`}>
            <td><a href=${`#/job/${j.id}`}>${j.id.slice(0, 13)}</a></td>
            <td>${j.name}</td>
            <td>${j.queue}</td>
            <td data-testid="state"><span class=${`state ${j.state}`}>${j.state}</span></td>
            <td>${j.attempt}/${j.maxAttempts}</td>
            <td>${when(j.createdAt)}</td>
            <td class="error-cell">${j.lastError?.split('\n')[0] ?? ''}</td>
            ${props.actions ? html`<td>${props.actions(j)}</td>` : ''}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function Pager(props: {
  readonly view: string;
  readonly query: Record<string, string | undefined>;
  readonly page: JobPage | undefined;
}) {
  const to = (cursor: Record<string, string | undefined>) =>
    go(props.view, undefined, { ...props.query, after: undefined, before: undefined, ...cursor });
  return html`<div class="pager">
    <button
      data-testid="newer"
      disabled=${!props.page?.previous}
      onClick=${() => to({ before: props.page?.previous ?? undefined })}
    >
      ← newer
    </button>
    <button
      data-testid="older"
      disabled=${!props.page?.next}
      onClick=${() => to({ after: props.page?.next ?? undefined })}
    >
      older →
    </button>
  </div>`;
}

/** Job lists (`#/jobs`, every filter, cursor paging) and the dead-letter queue (`#/dead`, with retry and bulk retry). */
export function JobsView(props: { readonly session: Session; readonly route: Route }) {
  const dead = props.route.view === 'dead';
  const query = queryOf(props.route);
  const key = `${props.route.view}?${props.route.query.toString()}`;
  const page = usePoll(
    () => get<JobPage>(dead ? 'dead' : 'jobs', query),
    key,
    props.session.pollMs,
  );
  const { note, fail, act } = useActions(page.reload);
  const retry = (j: JobSummary) =>
    html`<button
      data-testid="retry"
      onClick=${() => act(() => post(`jobs/${j.id}/retry`), `retried ${j.id}`)}
    >
      Retry
    </button>`;
  const filter = {
    state: 'dead',
    queue: query.queue || undefined,
    name: query.name || undefined,
    tenantId: query.tenantId || undefined,
  };
  // the bulk call walks state, queue, name and tenant only: with a narrower filter set it would move rows not shown
  const unappliable = Object.entries(BULK_CANNOT_APPLY)
    .filter(([key]) => query[key])
    .map(([, label]) => label);
  const bulk = async () => {
    if (unappliable.length > 0) return;
    let preview: { matched: number; more: boolean };
    try {
      preview = await post<{ matched: number; more: boolean }>('bulk/preview', {
        action: 'requeue',
        filter,
      });
    } catch (e) {
      fail(e);
      return;
    }
    const count = `${preview.matched}${preview.more ? '+' : ''}`;
    if (!confirm(`Retry ${count} dead job(s) matching this filter?`)) return;
    await act(
      async () => {
        let moved = 0;
        // one bounded call at a time, until nothing matching is left (or 100 calls)
        for (let i = 0; i < 100; i++) {
          const r = await post<{ affected: number; remaining: number }>('bulk', {
            action: 'requeue',
            filter,
          });
          moved += r.affected;
          if (r.remaining === 0 || r.affected === 0) break;
        }
        return moved;
      },
      (moved) => `retried ${moved}`,
    );
  };
  return html`<section>
    <h2>${dead ? 'Dead letters' : 'Jobs'}</h2>
    <${Filters} view=${props.route.view} query=${query} />
    ${
      dead && props.session.canWrite
        ? html`<p>
            <button
              data-testid="bulk-retry"
              disabled=${unappliable.length > 0}
              title=${
                unappliable.length > 0
                  ? `Bulk retry filters by queue, job name and tenant only: clear ${unappliable.join(', ')} to retry every match`
                  : 'Retry every dead job matching queue, job name and tenant'
              }
              onClick=${bulk}
            >
              Retry all matching…
            </button>
          </p>`
        : ''
    }
    <${NoteLine} note=${note} />
    ${page.error && html`<p class="error">${page.error}</p>`}
    <${JobTable} page=${page.data} actions=${dead && props.session.canWrite ? retry : undefined} />
    <${Pager} view=${props.route.view} query=${query} page=${page.data} />
  </section>`;
}
