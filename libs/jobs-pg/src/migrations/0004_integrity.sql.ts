/**
 * Migration 0004: what keeps one bad row from stopping the others, and what tenancy records.
 *
 * - `x_outbox.quarantined_at` / `quarantine_code`: a staged row the relay could not publish after its bounded tries
 *   (or a row its transaction staged after such a row) leaves the claim: the rows behind it flow, and the operator
 *   reads it through `OutboxStore.quarantined()`. The claim's index is rebuilt over rows still to publish, so a
 *   quarantined row is never stepped over by a claim.
 * - `x_job_events.tenant_id`: an event is scoped to the tenant it was published under (null: no tenant); a wait
 *   matches its own run's tenant only.
 * - `x_jobs.cross_tenant_reason`: the `crossTenant(reason, …)` a row was enqueued under, when its tenant is not the
 *   enqueuing run's.
 *
 * Every column is nullable with no default, so adding it rewrites nothing. The new indexes are built inside the
 * migration's transaction: over a large outbox backlog, apply it at a quiet moment.
 */
export const MIGRATION_0004_INTEGRITY = `
alter table x_outbox add column quarantined_at timestamptz;   -- set once: the row is out of every claim
alter table x_outbox add column quarantine_code text;         -- why: X_OUTBOX_QUARANTINED, or the held-behind code

-- the claim's scan: rows still to publish, in (staged_at, id) order
create index x_outbox_claim_idx on x_outbox (staged_at, id)
  where published_at is null and quarantined_at is null;
-- the operator's listing
create index x_outbox_quarantined_idx on x_outbox (quarantined_at, staged_at, id)
  where published_at is null and quarantined_at is not null;

-- The index the claim index replaces lives in x_outbox's schema, which need not be on the search_path: drop it there.
do $drop$
begin
  execute format(
    'drop index %I.x_outbox_pending_idx',
    (select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = 'x_outbox'::regclass)
  );
end
$drop$;

alter table x_job_events add column tenant_id text;           -- null: published under no tenant
-- a wait's lookup: one tenant's events of one name, in (published_at, id) order
create index x_job_events_tenant_idx on x_job_events (name, (coalesce(tenant_id, '')), published_at, id);

alter table x_jobs add column cross_tenant_reason text;       -- the crossTenant() reason of a cross-tenant enqueue
`;
