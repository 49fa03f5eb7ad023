/**
 * Migration 0008: an event's payload is stored as `json`, not `jsonb`, for the reason migration 0005 gave for inputs
 * and step outputs: the payload a `step.waitForEvent` first receives is what it stores as its answer and what every
 * replay returns, so it must be exactly what was published. `jsonb` reorders object keys, keeps only the last of
 * duplicate keys and refuses `\u0000` and lone surrogates (a raw 22P05 / 22P02 at publish); `json` keeps the text the
 * bus hands it, `JSON.stringify` of the payload, which `JSON.parse` reads back as the same value. No statement reads
 * into the payload in SQL (a wait's `match` runs in the process), so no operator or index is lost.
 *
 * Changing a column's type rewrites the table under an exclusive lock; events live a day by default, so the table is
 * small.
 */
export const MIGRATION_0008_EXACT_EVENT_PAYLOADS = `
alter table x_job_events alter column payload type json using payload::json;
`;
