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

/** One row hash (as a flat field list) as a {@link JobRow}; undefined for an empty reply (no such row). */
export function toJobRow(reply: ScriptReply): JobRow | undefined {
  const f = fieldsOf(reply);
  if (f.size === 0) return undefined;
  const progress = text(f, 'pg');
  return {
    id: f.get('id') ?? '',
    runId: f.get('run') ?? '',
    name: f.get('name') ?? '',
    queue: f.get('q') ?? '',
    input: JSON.parse(f.get('input') ?? 'null') as JsonValue,
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
    progress: progress === null ? null : (JSON.parse(progress) as JobProgress),
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
