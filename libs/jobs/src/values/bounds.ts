/**
 * The bounds of the value contract: what every driver can store exactly, decided once here. Lengths are UTF-16 code
 * units (what `String.length` counts); a code unit is at most 3 bytes of UTF-8, so each bound below also keeps the
 * btree entries PostgreSQL builds over these columns under their 2,704-byte limit — a longer key used to fail the
 * write with a raw 54000.
 */

/** Longest job or task name (ASCII only: letters, digits and `. _ : -`). */
export const MAX_JOB_NAME_LENGTH = 128;
/** Longest queue name (ASCII only, as job names): PostgreSQL cuts identifiers at 63 bytes. */
export const MAX_QUEUE_NAME_LENGTH = 63;

/** Longest idempotency key a job may answer (1,536 bytes of UTF-8 at most). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 512;

/**
 * Longest tenant id. With a job name (ASCII, ≤ 128) and a key (≤ 512 code units), one entry of the live-key index
 * stays under PostgreSQL's btree limit.
 */
export const MAX_TENANT_LENGTH = 256;

/**
 * Longest event name `publishEvent` and `step.waitForEvent` take. With a tenant (≤ 256), one entry of the events'
 * tenant index stays under PostgreSQL's btree limit.
 */
export const MAX_EVENT_NAME_LENGTH = 256;

/** The largest event payload `publishEvent` accepts, as JSON text (1 MiB: the bound on a job's input). */
export const MAX_EVENT_PAYLOAD_BYTES = 1_048_576;

/** Longest step name a body may pass to `step.run`, `step.sleep` or `step.waitForEvent`. */
export const MAX_STEP_NAME_LENGTH = 256;

/**
 * Longest concurrency key a row may carry: a declaration's `concurrency.key` answers at most 200 characters, and a
 * driver takes a little more, for the prefix a lease key puts before it.
 */
export const MAX_ROW_CONCURRENCY_KEY_LENGTH = 512;

/** Longest actor id recorded as a row's `enqueuedBy`. */
export const MAX_ACTOR_LENGTH = 256;

/** Longest traceparent a row may carry (W3C's is 55 characters). */
export const MAX_TRACEPARENT_LENGTH = 256;

/**
 * Longest free text stored: an error message, a cancel reason, a progress note. Longer text is cut and ends with
 * {@link TRUNCATION_MARKER} and the count of code units cut.
 */
export const MAX_FREE_TEXT_LENGTH = 8_192;

/** What ends a truncated free text, before the count of code units cut: `… [truncated 1234 chars]`. */
export const TRUNCATION_MARKER = '… [truncated ';

/**
 * Deepest nesting of a stored JSON value (input, step output): a scalar is depth 0, `{ a: 1 }` depth 1. Deep enough
 * for any real payload, and far inside every parser's stack — a value nested ~2,500 levels used to throw a raw
 * `RangeError` from the checking walk itself.
 */
export const MAX_JSON_DEPTH = 64;

/** The priority range: the column is a 32-bit integer (lower claims first). */
export const MIN_PRIORITY = -2_147_483_647;
/** See {@link MIN_PRIORITY}. */
export const MAX_PRIORITY = 2_147_483_647;

/** The most attempts a job may declare: a whole number from 1 to 1,000,000 (the column is a 32-bit integer). */
export const MAX_ATTEMPTS = 1_000_000;

/**
 * The earliest time a row may carry: 0001-01-01T00:00:00.000Z. Years 0001–9999 are what every driver stores and
 * reads back to the millisecond (an ISO text past 9999 needs a sign PostgreSQL does not parse).
 */
export const MIN_TIME_MS = -62_135_596_800_000;
/** The latest time a row may carry: 9999-12-31T23:59:59.999Z. See {@link MIN_TIME_MS}. */
export const MAX_TIME_MS = 253_402_300_799_999;

/**
 * The longest duration a declaration or a step may name (a delay, a timeout, a sleep): 100 years. Added to any time
 * before year 9899 it stays a time every driver can store.
 */
export const MAX_DURATION_MS = 3_155_760_000_000;

/**
 * The shortest visibility timeout a worker accepts (1 s): a lease shorter than a statement's round trip lapses while
 * the body still runs, and another worker starts it again.
 */
export const MIN_VISIBILITY_TIMEOUT_MS = 1_000;

/** The shortest heartbeat interval a worker accepts (100 ms). It must also be at most half the visibility timeout. */
export const MIN_HEARTBEAT_INTERVAL_MS = 100;
