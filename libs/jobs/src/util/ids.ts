import { randomUUID } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562): 48 bits of milliseconds, the version, then random bits. Time-ordered, so inserts stay
 * index-local and ids sort by creation, while 74 random bits keep them unguessable enough for URLs.
 *
 * The random bits come from `crypto.randomUUID()`, whose v4 layout already carries the RFC variant where v7 wants
 * it: the timestamp replaces its first 12 hex digits and the version digit becomes 7. Node draws those from a cached
 * entropy pool — ~0.1 µs an id, against ~6 µs for a `randomBytes(16)` call each (two ids per enqueued job).
 */
export function uuidv7(nowMs: number = Date.now()): string {
  return `${timePrefix(nowMs)}${randomUUID().slice(15)}`;
}

/**
 * `count` UUIDv7s of one millisecond, as {@link uuidv7} mints them, the time part formatted once: what a batch
 * enqueue mints (two ids a job), at under half the cost of as many `uuidv7()` calls.
 */
export function uuidv7Batch(nowMs: number, count: number): string[] {
  const prefix = timePrefix(nowMs);
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) ids[i] = `${prefix}${randomUUID().slice(15)}`;
  return ids;
}

/** The first 15 characters of a UUIDv7 of `nowMs`: 48 bits of milliseconds, then the version digit. */
function timePrefix(nowMs: number): string {
  const ms = Math.min(MAX_MS, Math.max(0, Math.floor(nowMs)));
  const time = ms.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7`;
}

/** The last millisecond 48 bits hold (the year 10889). */
const MAX_MS = 2 ** 48 - 1;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in canonical text form. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
