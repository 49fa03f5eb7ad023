/**
 * Migration 0003: the claim index leads with the job name, for workers that claim only the names they serve
 * (`ClaimSlot.names`): one ordered range scan per served name. Over `(queue, priority, run_at, id)` a name filter
 * could only step over other names' entries one by one, so a backlog of a name a worker does not serve (a job a newer
 * build added, mid rolling deploy) was walked by every claim that worker made — with 200,000 such rows ahead, 1,451
 * buffers a claim, measured, against 5 over this index. It replaces `x_jobs_claim_idx`: a waiting row still keeps one
 * claim index entry. Built inside the migration's transaction (not `concurrently`), so it holds off writes to
 * `x_jobs` while it reads the table: apply it before the new workers start, at a quiet moment on a large table.
 */
export const MIGRATION_0003_CLAIM_BY_NAME = `
-- The claim's waiting scans: per (queue, name), waiting rows by priority, run time, id. Running and finished rows
-- are out of it, so a claim never steps over them.
create index x_jobs_claim_name_idx
  on x_jobs (queue, name, priority, run_at, id)
  where state in ('ready', 'delayed', 'suspended');

-- The index it replaces lives in x_jobs's schema, which need not be on the search_path: drop it there.
do $drop$
begin
  execute format(
    'drop index %I.x_jobs_claim_idx',
    (select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = 'x_jobs'::regclass)
  );
end
$drop$;
`;
