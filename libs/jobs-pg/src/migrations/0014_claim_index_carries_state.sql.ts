/**
 * Migration 0014: the claim index carries each waiting row's `state` (`include (state)`), and migration 0011's
 * `x_jobs_waiting_count_idx` goes: one index entry fewer for every row entering a waiting state.
 *
 * Both indexes held exactly the waiting rows (ready, delayed, suspended) and both led with (queue, name); 0011 added
 * the second only because the claim index lacked `state`, which `SQL_STATS` counts by, so counting through it visited
 * the heap. With `state` as a non-key column of the claim index, the stats read is the same index-only scan over the
 * same rows (queue, name, state and run_at are all in the index), and an enqueue, a retry or a hand-back writes three
 * index entries where it wrote four. The claim reads its key columns as before; the entry is a few bytes wider and
 * no comparison ever looks at the included column. Measured on batches of 1,000 bench rows (2-core VM, PostgreSQL 18,
 * backend CPU per batch, medians of 9 interleaved rounds of 20 batches): 19.5 ms before, 16.0 after on a loaded
 * machine (load ~9), 15.0 and 12.0 at load ~7; WAL 558 bytes a row before, 474 after.
 *
 * What it costs: the stats read's waiting part reads more index pages. The waiting-count index deduplicated its
 * entries (the rows of one queue, name, state and due time shared one posting list), the claim index holds one entry
 * per row: over 22,000 waiting rows the index-only scan read 28 buffers before, 189 after. It stays a scan of the
 * waiting rows only, as bounded as before; a stats read is a poll, an enqueue is every job.
 *
 * The new index is built under a temporary name (`if not exists`: a DBA may first build it by hand with `create index
 * concurrently` under that name, the definition below), then the two it replaces are dropped and it takes the claim
 * index's name, `x_jobs_claim_name_idx`, in the tables' schema. Building an index reads the whole table and holds off
 * writes to `x_jobs` while it builds (a SHARE lock; reads go on); each drop and the rename take the table's or the
 * index's exclusive lock for an instant. On a large `x_jobs`, apply it at a quiet moment, or build the index by hand
 * first as above. Workers of the build before keep working through it: no statement names an index.
 */
export const MIGRATION_0014_CLAIM_INDEX_CARRIES_STATE = `
create index if not exists x_jobs_claim_name_state_idx
  on x_jobs (queue, name, priority, run_at, id) include (state)
  where state in ('ready', 'delayed', 'suspended');

-- The indexes it replaces live in x_jobs's schema, which need not be on the search_path: drop them there.
do $swap$
declare
  tables text := (
    select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = 'x_jobs'::regclass
  );
begin
  execute format('drop index if exists %I.x_jobs_claim_name_idx', tables);
  execute format('drop index if exists %I.x_jobs_waiting_count_idx', tables);
  execute format('alter index %I.x_jobs_claim_name_state_idx rename to x_jobs_claim_name_idx', tables);
end
$swap$;
`;
