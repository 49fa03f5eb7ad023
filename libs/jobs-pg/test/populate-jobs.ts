/**
 * Populating `x_jobs` in one statement for the migration specs: `$1` rows of the states `$3` (in turn), keyed
 * `$2 || n`, over two queues (`m-a`, `m-b`), two names (`m.even`, `m.odd`), priorities 0–4 and seven due minutes;
 * finished states carry a finish time. With `tenants`, every fourth row belongs to tenant `t1`, the rest to none.
 */
export function populateJobsSql({ tenants }: { readonly tenants: boolean }): string {
  return `
insert into x_jobs (id, run_id, name, queue, input, idempotency_key,${tenants ? ' tenant_id,' : ''} state, attempt,
  max_attempts, priority, run_at, created_at, updated_at, finished_at)
select gen_random_uuid(), gen_random_uuid(), case when g % 2 = 0 then 'm.even' else 'm.odd' end,
  case when g % 3 = 0 then 'm-b' else 'm-a' end, json_build_object('n', g), $2::text || g,${tenants ? " case when g % 4 = 0 then 't1' end," : ''}
  s.state, 0, 3, g % 5,
  timestamptz '2026-01-01' + (g % 7) * interval '1 minute', timestamptz '2026-01-01', timestamptz '2026-01-01',
  case when s.state in ('done', 'dead', 'failed') then timestamptz '2026-01-01' end
from generate_series(1, $1::int) g
cross join lateral (
  select ($3::text[])[1 + g % cardinality($3::text[])] as state
) s`;
}

/** Every state a row can be in, the waiting and finished ones twice: the `$3` of {@link populateJobsSql}. */
export const EVERY_STATE = [
  'ready',
  'ready',
  'delayed',
  'suspended',
  'done',
  'done',
  'dead',
  'failed',
];
