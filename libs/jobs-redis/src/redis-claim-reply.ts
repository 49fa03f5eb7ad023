import type { ClaimedJob, JobProgress, JobState, JsonValue } from '@ultimat3/jobs';
import type { ClaimReplyField } from './lua/claim.lua';

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

/**
 * The order {@link packedClaimedRow} reads the values after the id in: `CLAIM_REPLY_FIELDS` without `id` (its spec
 * holds the two equal).
 */
export const PACKED_VALUE_ORDER: readonly Exclude<ClaimReplyField, 'id'>[] = [
  'run',
  'name',
  'q',
  'input',
  'key',
  'ten',
  'by',
  'att',
  'max',
  'pri',
  'at',
  'ca',
  'err',
  'pg',
  'ck',
  'tp',
  'fin',
  'xr',
];

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
  // the values after the id, in PACKED_VALUE_ORDER, read one separator at a time (no array of parts)
  let at = end + 1;
  const next = (): string => {
    const sep = text.indexOf('\u0000', at);
    const value = sep < 0 ? text.slice(at) : sep === at ? '' : text.slice(at, sep);
    at = sep < 0 ? text.length + 1 : sep + 1;
    return value;
  };
  const [run, name, queue, inputField, key, ten, by, att, max, pri, runAt, ca] = [
    next(),
    next(),
    next(),
    next(),
    next(),
    next(),
    next(),
    next(),
    next(),
    next(),
    next(),
    next(),
  ];
  const [err, pg, ck, tp, fin, xr] = [next(), next(), next(), next(), next(), next()];
  // a NUL inside a stored value shows as a separator too many: the row is read whole instead
  if (at !== text.length + 1) return { whole: id };
  const inputText = marked(inputField);
  // undefined: the stored text is not JSON (a JSON null reads as null); an absent input reads as null
  const input = inputText === null ? null : parsedJson(inputText);
  const progress = marked(pg);
  const row: ClaimedJob = {
    id,
    runId: run,
    name,
    queue,
    input: input === undefined ? inputText : input,
    idempotencyKey: key,
    tenantId: marked(ten),
    enqueuedBy: marked(by),
    state: 'running' satisfies JobState,
    attempt: Number(att),
    maxAttempts: Number(max),
    priority: Number(pri),
    runAt: Number(runAt),
    createdAt: Number(ca),
    updatedAt: written.now,
    workerId: written.workerId,
    claim: `${written.base}:${seq}`,
    leaseExpiresAt: written.leaseExpiresAt,
    lastError: marked(err),
    progress: progress === null ? null : ((parsedJson(progress) ?? null) as JobProgress | null),
    concurrencyKey: marked(ck),
    traceparent: marked(tp),
    finishedAt: markedNumber(fin),
    crossTenantReason: marked(xr),
  };
  return { row, unreadable: input === undefined };
}
