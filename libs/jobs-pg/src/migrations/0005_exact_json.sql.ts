/**
 * Migration 0005: stored inputs, step outputs and staged requests become `json`, not `jsonb`, so a replay reads back
 * exactly the value the first run saw. `jsonb` is a parsed form: it reorders object keys (shortest first), keeps only
 * the last of duplicate keys, and refuses `\u0000` and lone surrogates (`\ud800`) that JSON text and JavaScript allow —
 * a step output holding one failed its save with a raw 22P05/22P02 on every attempt, and an input's keys came back in
 * another order. `json` stores the text it is handed verbatim (PostgreSQL checks escapes only for syntax), and the
 * driver hands it `JSON.stringify` of the value, which `JSON.parse` turns back into the same value — own `__proto__`
 * keys, key order, NUL and lone surrogates included. Nothing in SQL reads into these columns, so nothing loses an
 * operator or an index.
 *
 * Changing a column's type rewrites its table (and rebuilds its indexes) under an exclusive lock: on a large
 * `x_jobs`, apply it at a quiet moment.
 */
export const MIGRATION_0005_EXACT_JSON = `
alter table x_jobs alter column input type json using input::json;
alter table x_job_steps alter column output type json using output::json;
alter table x_outbox alter column request type json using request::json;
`;
