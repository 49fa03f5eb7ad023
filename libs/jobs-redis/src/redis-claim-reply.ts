import type { ClaimedJob, JobProgress, JobState, JsonValue } from '@ultimat3/jobs';
import { CLAIM_REPLY_FIELDS, type ClaimReplyField } from './lua/claim-pack.lua';

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

/** JSON text's value, or undefined when the text is not JSON (written around the driver). */
function parsedJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** Each field's 0-based position in a packed row ({@link CLAIM_REPLY_FIELDS}' order). */
const AT = Object.fromEntries(CLAIM_REPLY_FIELDS.map((f, i) => [f, i])) as Readonly<
  Record<ClaimReplyField, number>
>;

/** How many values a packed row holds. */
const FIELDS = CLAIM_REPLY_FIELDS.length;

/**
 * The values of a packed row from `at` on in `text`, by position; a position the presence mask leaves out is null.
 * Undefined when the text does not hold exactly {@link FIELDS} values (a NUL inside a stored value shows as a
 * separator too many).
 */
function positionalValues(text: string, at: number, mask: number): (string | null)[] | undefined {
  const values = new Array<string | null>(FIELDS);
  for (let p = 0; p < FIELDS; p++) {
    let sep = text.indexOf('\u0000', at);
    if (p === FIELDS - 1) {
      if (sep >= 0) return undefined;
      sep = text.length;
    } else if (sep < 0) return undefined;
    values[p] = (mask & (1 << p)) !== 0 ? text.slice(at, sep) : null;
    at = sep + 1;
  }
  return values;
}

/** A number field's value; an absent one reads as 0 (as the row reader does). */
const numberOf = (v: string | null | undefined): number => (v == null ? 0 : Number(v));

/**
 * One row of `LUA_CLAIM`'s reply — the `seq`-th taken, packed by `packRow` (`LUA_CLAIM_PACK`: the id's length, NUL,
 * the id, NUL, the presence mask, NUL, the {@link CLAIM_REPLY_FIELDS} values by position) — as the claimed row it is; or, for a
 * row whose stored values hold a NUL (written around the driver, so its separators are not the only ones), its id,
 * for the caller to read whole. Undefined for text not so shaped.
 */
export function packedClaimedRow(
  text: string,
  seq: number,
  written: ClaimWritten,
): ReadClaimedRow | { readonly whole: string } | undefined {
  const lengthEnd = text.indexOf('\u0000');
  if (lengthEnd <= 0) return undefined;
  const start = lengthEnd + 1;
  const end = start + Number(text.slice(0, lengthEnd));
  if (!(end < text.length) || text.charCodeAt(end) !== 0) return undefined;
  const id = text.slice(start, end);
  const maskEnd = text.indexOf('\u0000', end + 1);
  if (maskEnd < 0) return undefined;
  const v = positionalValues(text, maskEnd + 1, Number(text.slice(end + 1, maskEnd)));
  if (v === undefined) return { whole: id };
  const stored = v[AT.input] ?? null;
  // undefined: the stored text is not JSON (a JSON null reads as null); an absent input reads as null
  const input = stored === null ? null : parsedJson(stored);
  const pg = v[AT.pg] ?? null;
  const fin = v[AT.fin] ?? null;
  const row: ClaimedJob = {
    id,
    runId: v[AT.run] ?? '',
    name: v[AT.name] ?? '',
    queue: v[AT.q] ?? '',
    input: input === undefined ? stored : input,
    idempotencyKey: v[AT.key] ?? '',
    tenantId: v[AT.ten] ?? null,
    enqueuedBy: v[AT.by] ?? null,
    state: 'running' satisfies JobState,
    attempt: numberOf(v[AT.att]) + 1,
    maxAttempts: numberOf(v[AT.max]),
    priority: numberOf(v[AT.pri]),
    runAt: numberOf(v[AT.at]),
    createdAt: numberOf(v[AT.ca]),
    updatedAt: written.now,
    workerId: written.workerId,
    claim: `${written.base}:${seq}`,
    leaseExpiresAt: written.leaseExpiresAt,
    lastError: v[AT.err] ?? null,
    progress: pg === null ? null : ((parsedJson(pg) ?? null) as JobProgress | null),
    concurrencyKey: v[AT.ck] ?? null,
    traceparent: v[AT.tp] ?? null,
    finishedAt: fin === null ? null : Number(fin),
    crossTenantReason: v[AT.xr] ?? null,
  };
  return { row, unreadable: input === undefined };
}
