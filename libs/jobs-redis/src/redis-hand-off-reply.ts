import type { ClaimedJob } from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { packedClaimedRow, type ReadClaimedRow } from './redis-claim-reply';
import { rowFrom } from './redis-rows';

/** The list entry `LUA_HAND_OFF_LEAVE` pushes to end a blocking pop: a lone NUL, which no handed row is. */
export const HAND_OFF_STOP = '\u0000';

/** The rows of handed entries, read: the runnable ones, and those whose stored input is not JSON text. */
export interface HandedRows {
  readonly rows: ClaimedJob[];
  readonly unreadable: ClaimedJob[];
}

/** A handed row read whole from its hash (its packed text held a NUL in a stored value): as the hand-off wrote it. */
async function wholeRow(ctx: RedisContext, id: string): Promise<ReadClaimedRow | undefined> {
  const fields = await ctx.client.hgetall(`${ctx.prefix}j:${id}`);
  if (Object.keys(fields).length === 0) return undefined;
  const read = rowFrom((key) => (Object.hasOwn(fields, key) ? fields[key] : undefined));
  return { row: read.row as ClaimedJob, unreadable: read.unreadable };
}

/** Splits the three NUL-ended heads off a handed entry: token base, server now, lease expiry, and the packed row. */
function headsOf(entry: string): [string, number, number, string] | undefined {
  const a = entry.indexOf('\u0000');
  const b = a < 0 ? -1 : entry.indexOf('\u0000', a + 1);
  const c = b < 0 ? -1 : entry.indexOf('\u0000', b + 1);
  if (c < 0) return undefined;
  return [
    entry.slice(0, a),
    Number(entry.slice(a + 1, b)),
    Number(entry.slice(b + 1, c)),
    entry.slice(c + 1),
  ];
}

/**
 * Reads the entries `LUA_HAND_OFF` pushed for `workerId` (see its header): each is a row that script claimed for the
 * worker, decoded as the claim's own reply is (`packedClaimedRow`, token `${base}:1`). The stop marker and anything
 * unreadable as an entry are passed over. Answered at once, with no promise, unless a row must be read whole from its
 * hash (a stored value holding a NUL): a handed row reaches the worker in the turn its pop was answered in.
 */
export function handedRows(
  ctx: RedisContext,
  workerId: string,
  entries: readonly unknown[],
): HandedRows | Promise<HandedRows> {
  const rows: ClaimedJob[] = [];
  const unreadable: ClaimedJob[] = [];
  for (const entry of entries) {
    const read = entryRead(workerId, entry);
    if (read === undefined) continue;
    if ('whole' in read) return handedRowsRead(ctx, workerId, entries);
    (read.unreadable ? unreadable : rows).push(read.row);
  }
  return { rows, unreadable };
}

/** One handed entry decoded; undefined for the stop marker and anything not shaped as an entry. */
function entryRead(
  workerId: string,
  entry: unknown,
): ReadClaimedRow | { readonly whole: string } | undefined {
  if (typeof entry !== 'string' || entry === HAND_OFF_STOP) return undefined;
  const heads = headsOf(entry);
  if (heads === undefined) return undefined;
  const [base, now, leaseExpiresAt, packed] = heads;
  return packedClaimedRow(packed, 1, { workerId, base, now, leaseExpiresAt });
}

/** {@link handedRows} for entries of which some row is read whole from its hash: in the entries' order. */
async function handedRowsRead(
  ctx: RedisContext,
  workerId: string,
  entries: readonly unknown[],
): Promise<HandedRows> {
  const rows: ClaimedJob[] = [];
  const unreadable: ClaimedJob[] = [];
  for (const entry of entries) {
    let read = entryRead(workerId, entry);
    if (read !== undefined && 'whole' in read) read = await wholeRow(ctx, read.whole);
    if (read !== undefined) (read.unreadable ? unreadable : rows).push(read.row);
  }
  return { rows, unreadable };
}
