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

/** A stored field of a claimed row, as {@link packedClaimedRow} found it: the text, or null when the hash has none. */
type Stored = Record<ClaimReplyField, string | null>;

/** A number field's value; an absent one reads as 0 (as the row reader does). */
const numberOf = (v: string | null): number => (v === null ? 0 : Number(v));

/** JSON text's value, or undefined when the text is not JSON (written around the driver). */
function parsedJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** An empty {@link Stored}: every field absent until the row's list names it. */
const noneStored = (): Stored => ({
  id: null,
  run: null,
  name: null,
  q: null,
  input: null,
  key: null,
  ten: null,
  by: null,
  att: null,
  max: null,
  pri: null,
  at: null,
  ca: null,
  err: null,
  pg: null,
  ck: null,
  tp: null,
  fin: null,
  xr: null,
});

/** A name's length and first two character codes as one number: what tells the kept field names apart. */
const shapeOf = (text: string, at: number, length: number): number =>
  length * 65_536 + text.charCodeAt(at) * 256 + (length > 1 ? text.charCodeAt(at + 1) : 0);

/** The kept field names by {@link shapeOf}: every name's shape is its own (the spec holds so). */
export const KEPT_BY_SHAPE: ReadonlyMap<number, ClaimReplyField> = new Map(
  CLAIM_REPLY_FIELDS.map((f) => [shapeOf(f, 0, f.length), f]),
);

/**
 * The kept field named by `text` from `at` to `end`, or undefined for a field the claimed row does not take from the
 * store: looked up by its shape, then checked in place (no name cut out of the text).
 */
function keptAt(text: string, at: number, end: number): ClaimReplyField | undefined {
  const field = KEPT_BY_SHAPE.get(shapeOf(text, at, end - at));
  return field !== undefined && text.startsWith(field, at) ? field : undefined;
}

/**
 * The stored fields of a packed row's flat field/value list, from `at` on in `text`: undefined when it does not hold
 * exactly `count` entries (a NUL inside a stored value shows as a separator too many). Fields the claimed row does not
 * take from the store (state, worker, claim, lease, update time) and unknown ones are passed over, their values never
 * cut out of the text.
 */
function storedFields(text: string, at: number, count: number): Stored | undefined {
  const f = noneStored();
  let seen = 0;
  let field: ClaimReplyField | undefined;
  // one separator at a time (no array of parts); even entries are names, odd ones their values
  while (at <= text.length) {
    let sep = text.indexOf('\u0000', at);
    if (sep < 0) sep = text.length;
    if (seen % 2 === 0) field = keptAt(text, at, sep);
    else if (field !== undefined) f[field] = text.slice(at, sep);
    seen++;
    at = sep + 1;
  }
  return seen === count ? f : undefined;
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
  const countEnd = text.indexOf('\u0000', end + 1);
  if (countEnd < 0) return undefined;
  const f = storedFields(text, countEnd + 1, Number(text.slice(end + 1, countEnd)));
  if (f === undefined) return { whole: id };
  // undefined: the stored text is not JSON (a JSON null reads as null); an absent input reads as null
  const input = f.input === null ? null : parsedJson(f.input);
  const row: ClaimedJob = {
    id,
    runId: f.run ?? '',
    name: f.name ?? '',
    queue: f.q ?? '',
    input: input === undefined ? f.input : input,
    idempotencyKey: f.key ?? '',
    tenantId: f.ten,
    enqueuedBy: f.by,
    state: 'running' satisfies JobState,
    attempt: numberOf(f.att) + 1,
    maxAttempts: numberOf(f.max),
    priority: numberOf(f.pri),
    runAt: numberOf(f.at),
    createdAt: numberOf(f.ca),
    updatedAt: written.now,
    workerId: written.workerId,
    claim: `${written.base}:${seq}`,
    leaseExpiresAt: written.leaseExpiresAt,
    lastError: f.err,
    progress: f.pg === null ? null : ((parsedJson(f.pg) ?? null) as JobProgress | null),
    concurrencyKey: f.ck,
    traceparent: f.tp,
    finishedAt: f.fin === null ? null : Number(f.fin),
    crossTenantReason: f.xr,
  };
  return { row, unreadable: input === undefined };
}
