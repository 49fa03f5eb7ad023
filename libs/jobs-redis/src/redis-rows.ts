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

const text = (f: Map<string, string>, key: string): string | null => f.get(key) ?? null;
const num = (f: Map<string, string>, key: string): number | null => {
  const v = f.get(key);
  return v === undefined ? null : Number(v);
};

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

/** Whether a row hash's stored input is not JSON text (see {@link toJobRow}); such a row must not run. */
export function inputUnreadable(reply: ScriptReply): boolean {
  return parsed(fieldsOf(reply).get('input')) === undefined;
}

/**
 * One row hash (as a flat field list) as a {@link JobRow}; undefined for an empty reply (no such row). A stored input
 * that is not JSON text is answered as that text (a JSON string), for an operator to see and remove; a claim buries
 * such a row instead of handing it out ({@link inputUnreadable}). A progress that is not JSON reads as none.
 */
export function toJobRow(reply: ScriptReply): JobRow | undefined {
  const f = fieldsOf(reply);
  if (f.size === 0) return undefined;
  const progress = text(f, 'pg');
  // undefined: the stored text is not JSON (a JSON null reads as null)
  const readable = parsed(f.get('input'));
  return {
    id: f.get('id') ?? '',
    runId: f.get('run') ?? '',
    name: f.get('name') ?? '',
    queue: f.get('q') ?? '',
    input: readable === undefined ? (f.get('input') ?? null) : readable,
    idempotencyKey: f.get('key') ?? '',
    tenantId: text(f, 'ten'),
    enqueuedBy: text(f, 'by'),
    state: (f.get('st') ?? 'ready') as JobState,
    attempt: num(f, 'att') ?? 0,
    maxAttempts: num(f, 'max') ?? 0,
    priority: num(f, 'pri') ?? 0,
    runAt: num(f, 'at') ?? 0,
    createdAt: num(f, 'ca') ?? 0,
    updatedAt: num(f, 'ua') ?? 0,
    workerId: text(f, 'w'),
    claim: text(f, 'c'),
    leaseExpiresAt: num(f, 'le'),
    lastError: text(f, 'err'),
    progress: progress === null ? null : ((parsed(progress) ?? null) as JobProgress | null),
    concurrencyKey: text(f, 'ck'),
    traceparent: text(f, 'tp'),
    finishedAt: num(f, 'fin'),
    crossTenantReason: text(f, 'xr'),
  };
}

/** A reply holding a list of rows, each a flat field list, as rows. */
export function toJobRows(reply: ScriptReply): JobRow[] {
  if (!Array.isArray(reply)) return [];
  return reply.map(toJobRow).filter((row): row is JobRow => row !== undefined);
}
