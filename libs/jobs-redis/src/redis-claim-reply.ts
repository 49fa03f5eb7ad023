import type { ClaimedJob, JobProgress, JobState, JsonValue } from '@ultimat3/jobs';
import { CLAIM_REPLY_FIELDS, type ClaimReplyField } from './lua/claim.lua';

/** What a claim wrote into every row it took, known to the client without reading it back. */
export interface ClaimWritten {
  readonly workerId: string;
  /** The claim token base: the i-th row taken (from 1) holds `${base}:${i}`. */
  readonly base: string;
  /** The server's now the claim ran at (each row's update time). */
  readonly now: number;
  /** The lease expiry the claim wrote. */
  readonly leaseExpiresAt: number;
}

/** A claimed row read, and whether its stored input is not JSON text (such a row is buried, never handed out). */
export interface ReadClaimedRow {
  readonly row: ClaimedJob;
  readonly unreadable: boolean;
}

/** The position of each answered field after the id in a packed row (see `LUA_CLAIM`'s header). */
const AT = Object.fromEntries(CLAIM_REPLY_FIELDS.slice(1).map((f, i) => [f, i])) as Record<
  Exclude<ClaimReplyField, 'id'>,
  number
>;
/** How many values follow the id in a packed row. */
const VALUES = CLAIM_REPLY_FIELDS.length - 1;

/** A marked field's text: null when absent (''), else the text after its '=' mark. */
const marked = (v: string): string | null => (v === '' ? null : v.slice(1));

/** A marked field's epoch-ms or other number, null when absent. */
const markedNumber = (v: string): number | null => (v === '' ? null : Number(v.slice(1)));

/** JSON text's value, or undefined when the text is not JSON (written around the driver). */
function parsedJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * One row of `LUA_CLAIM`'s reply — the `seq`-th taken, packed as its header says — as the claimed row it is; or, for a
 * row whose stored values hold a NUL (written around the driver, so its separators are not the only ones), its id,
 * for the caller to read whole. Undefined for text not so shaped.
 */
export function packedClaimedRow(
  text: string,
  seq: number,
  written: ClaimWritten,
): ReadClaimedRow | { readonly whole: string } | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const start = colon + 1;
  const end = start + Number(text.slice(0, colon));
  if (!(end < text.length) || text.charCodeAt(end) !== 0) return undefined;
  const id = text.slice(start, end);
  const v = text.slice(end + 1).split('\u0000');
  if (v.length !== VALUES) return { whole: id };
  const inputText = marked(v[AT.input]!);
  // undefined: the stored text is not JSON (a JSON null reads as null); an absent input reads as null
  const input = inputText === null ? null : parsedJson(inputText);
  const progress = marked(v[AT.pg]!);
  const row: ClaimedJob = {
    id,
    runId: v[AT.run]!,
    name: v[AT.name]!,
    queue: v[AT.q]!,
    input: input === undefined ? inputText : input,
    idempotencyKey: v[AT.key]!,
    tenantId: marked(v[AT.ten]!),
    enqueuedBy: marked(v[AT.by]!),
    state: 'running' satisfies JobState,
    attempt: Number(v[AT.att]),
    maxAttempts: Number(v[AT.max]),
    priority: Number(v[AT.pri]),
    runAt: Number(v[AT.at]),
    createdAt: Number(v[AT.ca]),
    updatedAt: written.now,
    workerId: written.workerId,
    claim: `${written.base}:${seq}`,
    leaseExpiresAt: written.leaseExpiresAt,
    lastError: marked(v[AT.err]!),
    progress: progress === null ? null : ((parsedJson(progress) ?? null) as JobProgress | null),
    concurrencyKey: marked(v[AT.ck]!),
    traceparent: marked(v[AT.tp]!),
    finishedAt: markedNumber(v[AT.fin]!),
    crossTenantReason: marked(v[AT.xr]!),
  };
  return { row, unreadable: input === undefined };
}
