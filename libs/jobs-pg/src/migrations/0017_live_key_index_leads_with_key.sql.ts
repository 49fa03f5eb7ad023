/**
 * Migration 0017: the live-key index leads with the idempotency key, `(idempotency_key, name, coalesce(tenant_id,
 * ''))`. Same rows (the live states), same uniqueness, same name: only the order of its columns changes.
 *
 * Why: the index was `(name, coalesce(tenant_id, ''), idempotency_key)`. The rows of a bulk enqueue share their name
 * and tenant, so every comparison an insert makes (about twenty a row: the descent, the leaf's binary search, the
 * uniqueness check) matched the name and the tenant before the key told the rows apart, and each column after the
 * first varying-width one is found by walking the index tuple from its start (`nocache_index_getattr`). Leading with
 * the key, a comparison is mostly decided by the first column, read at a fixed offset. Every statement reaching rows
 * through this index names all three columns by equality, so any order serves it, and a uniqueness check is the same
 * whatever the order. It also takes the name off the front of a second index: `SQL_CLAIM_WAITING` tells how the
 * planner could pick this one for a name's waiting rows; now it serves only key lookups.
 *
 * Measured in backend instructions a 1,000-row `enqueueMany` batch of the peers bench's rows (callgrind, PostgreSQL 18,
 * one connection, fresh databases, sessions of 4 and 12 batches differenced, `scripts/bench/bulk-instructions.mjs`,
 * before and after alternated twice): 84.43 / 84.68 M -> 75.96 / 76.15 M on a libc `C.UTF-8` database (the embedded
 * server's), 88.41 / 87.69 M -> 79.31 / 79.67 M on an ICU `en-US` one; from 20 to 50 batches in, 85.14 -> 79.33 M.
 *
 * Not taken: `collate "C"` on `idempotency_key` (equality is bytewise under every deterministic collation, and it
 * saved ~1 M more instructions a batch on `C.UTF-8`, ~5 M on ICU `en-US`). Changing a column's collation changes the
 * row type of every statement returning it, and PostgreSQL then refuses each such statement a running process had
 * prepared ("cached plan must not change result type"): the workers of an app still running would fail their claims
 * until reconnected.
 *
 * What it costs an upgrading user: the new index is built under a temporary name (`if not exists`: a DBA may first
 * build it by hand with `create unique index concurrently` under that name, the definition below), then the old one
 * is dropped and the new one takes its name, `x_jobs_name_tenant_idempotency_live_idx`, in the tables' schema. No
 * table rewrite. Building reads the whole table and holds off writes to `x_jobs` while it builds (a SHARE lock; reads
 * go on); the drop and the rename take the table's or the index's exclusive lock for an instant. On a large `x_jobs`,
 * apply it at a quiet moment, or build the index by hand first as above. Workers of the build before keep working
 * through it: no statement names the index, and a unique violation names the same constraint as before.
 */
export const MIGRATION_0017_LIVE_KEY_INDEX_LEADS_WITH_KEY = `
create unique index if not exists x_jobs_key_name_tenant_live_idx
  on x_jobs (idempotency_key, name, coalesce(tenant_id, ''))
  where state in ('ready', 'delayed', 'running', 'suspended');

-- The index it replaces lives in x_jobs's schema, which need not be on the search_path: drop it there.
do $swap$
declare
  tables text := (
    select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = 'x_jobs'::regclass
  );
begin
  execute format('drop index if exists %I.x_jobs_name_tenant_idempotency_live_idx', tables);
  execute format(
    'alter index %I.x_jobs_key_name_tenant_live_idx rename to x_jobs_name_tenant_idempotency_live_idx', tables
  );
end
$swap$;
`;
