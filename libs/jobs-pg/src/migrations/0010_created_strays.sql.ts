/**
 * Migration 0010: `x_jobs_created_stray_idx`, the rows whose `created_at` is more than 10 s away from the time their
 * UUIDv7 id carries — what lets a list filtered by creation time walk the primary key instead of the whole table,
 * exactly.
 *
 * An id is minted by the enqueuing process (its clock, at mint time); `created_at` is the statement's clock when the
 * row lands (the injected clock, else the database's `now()`, which is the transaction's start). The two agree to a
 * few milliseconds for almost every row, but not always: a job staged in an outbox keeps the id minted at staging and
 * lands when the relay publishes it (any time later), an enqueue inside a long transaction lands at the transaction's
 * start, clocks drift, and a row written by hand may carry any UUID. The created window of `SQL_LIST_CREATED` walks
 * the primary key over the ids minted from 10 s before the window to 10 s after it, and reads the rows that no such
 * walk can reach — exactly these strays — through this index. It holds only them: an ordinary enqueue writes no
 * entry (its id and `created_at` never change afterwards, so later updates stay HOT). The predicate is repeated
 * verbatim in `SQL_LIST_CREATED` / `SQL_LIST_CREATED_BEFORE` (the planner uses a partial index only for a query that
 * implies its predicate): id time = the id's first 48 bits, in ms.
 *
 * Building an index reads the whole table and locks it against writes while it builds: on a large `x_jobs`, apply it
 * at a quiet moment (or create the index `concurrently` by hand first under the same name; `if not exists` then skips
 * it).
 */
export const MIGRATION_0010_CREATED_STRAYS = `
create index if not exists x_jobs_created_stray_idx
  on x_jobs (created_at)
  where created_at < to_timestamp((('x' || translate(left(id::text, 13), '-', ''))::bit(48)::bigint - 10000)::float8 / 1000)
     or created_at > to_timestamp((('x' || translate(left(id::text, 13), '-', ''))::bit(48)::bigint + 10000)::float8 / 1000);
`;
