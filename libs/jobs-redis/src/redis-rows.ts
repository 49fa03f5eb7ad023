import type { JobProgress, JobRow, JobState, JsonValue } from '@ultimat3/jobs';
import type { ScriptReply } from './redis-scripts';

/** What a null travels as in a script argument: NUL, a value no stored text may be (the value contract refuses it). */
export const NULL_ARG = '\u0000';

/** A flat `[field, value, …]` reply as a map of its fields. */
export function fieldsOf(reply: ScriptReply): Map<string, string> {
  const fields = new Map<string, string>();
  if (!Array.isArray(reply)) return fields;
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), String(reply[i + 1]));
  return fields;
}

/** Reads one field of a stored row: its text, or undefined when the row has none. */
export type FieldReader = (field: string) => string | undefined;

/**
 * A stored JSON field: its value, or — when the hash holds text that is not JSON (written around the driver: the
 * driver itself only stores `JSON.stringify`'s output) — undefined, so one damaged row never makes a read or a claim
 * of many rows throw.
 */
function parsed(text: string | undefined): JsonValue | undefined {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** A row read through `get`, and whether its stored input is not JSON text (decoded once for both). */
export function rowFrom(get: FieldReader): { row: JobRow; unreadable: boolean } {
  const text = (key: string): string | null => get(key) ?? null;
  const num = (key: string): number | null => {
    const v = get(key);
    return v === undefined ? null : Number(v);
  };
  const progress = text('pg');
  const state = (get('st') ?? 'ready') as JobState;
  // a row's worker, claim and lease are its while it runs: stored ones on a row in any other state are a settle's
  // leftovers (the ack leaves them, see LUA_ACK), absent to every reader
  const running = state === 'running';
  // undefined: the stored text is not JSON (a JSON null reads as null)
  const readable = parsed(get('input'));
  const row: JobRow = {
    id: get('id') ?? '',
    runId: get('run') ?? '',
    name: get('name') ?? '',
    queue: get('q') ?? '',
    input: readable === undefined ? (get('input') ?? null) : readable,
    idempotencyKey: get('key') ?? '',
    tenantId: text('ten'),
    enqueuedBy: text('by'),
    state,
    attempt: num('att') ?? 0,
    maxAttempts: num('max') ?? 0,
    priority: num('pri') ?? 0,
    runAt: num('at') ?? 0,
    createdAt: num('ca') ?? 0,
    updatedAt: num('ua') ?? 0,
    workerId: running ? text('w') : null,
    claim: running ? text('c') : null,
    leaseExpiresAt: running ? num('le') : null,
    lastError: text('err'),
    progress: progress === null ? null : ((parsed(progress) ?? null) as JobProgress | null),
    concurrencyKey: text('ck'),
    traceparent: text('tp'),
    finishedAt: num('fin'),
    crossTenantReason: text('xr'),
  };
  return { row, unreadable: readable === undefined };
}

/**
 * One row hash (as a flat field list) as a {@link JobRow}; undefined for an empty reply (no such row). A stored input
 * that is not JSON text is answered as that text (a JSON string), for an operator to see and remove; a claim buries
 * such a row instead of handing it out. A progress that is not JSON reads as none.
 */
export function toJobRow(reply: ScriptReply): JobRow | undefined {
  const f = fieldsOf(reply);
  if (f.size === 0) return undefined;
  return rowFrom((key) => f.get(key)).row;
}

/** A reply holding a list of rows, each a flat field list, as rows. */
export function toJobRows(reply: ScriptReply): JobRow[] {
  if (!Array.isArray(reply)) return [];
  return reply.map(toJobRow).filter((row): row is JobRow => row !== undefined);
}
