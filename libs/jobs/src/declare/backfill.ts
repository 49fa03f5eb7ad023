import { backfillPass } from '../backfill/backfill-pass';
import { backfillChecksum } from '../backfill/checksum';
import { stampBackfill } from '../backfill/registry';
import type { ResolvedBackfill } from '../backfill/resolved';
import { checkedRate } from '../backfill/throttle';
import { BackfillDeclarationInvalidError } from '../errors/backfill-errors';
import { t } from '../schema/t';
import { systemClock } from '../util/clock';
import type { BackfillDefinition, BackfillInput, BackfillResult } from './backfill-definition';
import type { JobHandle } from './handle';
import { job } from './job';
import { assertName, MAX_JOB_NAME_LENGTH } from './names';

/** Rows per page when a backfill declares no `batch`. */
export const DEFAULT_BACKFILL_BATCH = 1_000;

/** The largest `batch`: one page is one statement and one step, and its rows are held in memory together. */
export const MAX_BACKFILL_BATCH = 100_000;

/** The handle `backfill()` returns: a job whose input is `{ force? }` and whose result is the pass's report. */
export type BackfillHandle = JobHandle<BackfillInput, BackfillInput, BackfillResult>;

function checkedBatch(name: string, batch: unknown): number {
  if (batch === undefined) return DEFAULT_BACKFILL_BATCH;
  if (
    typeof batch !== 'number' ||
    !Number.isSafeInteger(batch) ||
    batch < 1 ||
    batch > MAX_BACKFILL_BATCH
  ) {
    throw new BackfillDeclarationInvalidError(
      name,
      'batch',
      `must be a whole number of rows from 1 to ${MAX_BACKFILL_BATCH} (got ${String(batch)})`,
    );
  }
  return batch;
}

function checkedList(name: string, field: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((v) => typeof v === 'string' && v.length > 0)
  ) {
    throw new BackfillDeclarationInvalidError(
      name,
      field,
      'must be a non-empty array of non-empty strings',
    );
  }
  return Object.freeze([...(value as string[])]);
}

/**
 * The functions a checksum hashes when they are not the declaration's own: a decorated class's methods, which the
 * declaration only delegates to.
 */
export interface BackfillChecksumSource {
  /** The class's `source` method. */
  readonly source: unknown;
  /** The class's `handle` method. */
  readonly handle: unknown;
  /** The class's `count` method, when it declares one. */
  readonly count?: unknown;
}

/** Every field of a declaration checked, in the order a reader meets them. */
function resolve<T>(
  def: BackfillDefinition<T>,
  hashed: BackfillChecksumSource = def,
): ResolvedBackfill<T> {
  const name = assertName('anonymous backfill', 'name', def.name, MAX_JOB_NAME_LENGTH);
  const fn = (field: string, value: unknown, optional: boolean): void => {
    if (value === undefined && optional) return;
    if (typeof value !== 'function') {
      throw new BackfillDeclarationInvalidError(name, field, 'must be a function');
    }
  };
  fn('source', def.source, false);
  fn('handle', def.handle, false);
  fn('count', def.count, true);
  if (def.tenant !== 'none' && typeof def.tenant !== 'function') {
    throw new BackfillDeclarationInvalidError(
      name,
      'tenant',
      "is required: () => orgId for one org's rows, or 'none' to sweep every tenant",
    );
  }
  if (
    def.requires !== undefined &&
    (typeof def.requires !== 'string' || def.requires.length === 0)
  ) {
    throw new BackfillDeclarationInvalidError(name, 'requires', 'must name a migration');
  }
  const key = typeof def.key === 'string' ? [def.key] : checkedList(name, 'key', def.key);
  const environments = checkedList(name, 'environments', def.environments);
  return {
    name,
    batch: checkedBatch(name, def.batch),
    rate: checkedRate(name, def.rate),
    tenant: def.tenant,
    key,
    source: def.source,
    handle: def.handle,
    count: def.count,
    requires: def.requires,
    environments,
    checksum: backfillChecksum({
      name,
      key,
      source: hashed.source,
      handle: hashed.handle,
      count: hashed.count,
      requires: def.requires,
      environments,
    }),
    clock: def.clock ?? systemClock,
    runtime: def.runtime,
  };
}

/**
 * Declares a backfill: one pass over every row a TypeORM source matches, as a job (its retries, queue, cancellation
 * and dead-letter path). The source is read in keyset pages of `batch` rows, each handled inside its own
 * `step.run('batch:N')` that checkpoints a cursor and a count, paced at `rate` pages a second. The job's idempotency
 * key is the name (re-enqueueing a live pass is the same pass). A completed pass in the ledger makes the next one a
 * no-op unless enqueued with `{ force: true }`. Every field is checked here (`X_BACKFILL_DECLARATION_INVALID`).
 */
export function backfill<T>(definition: BackfillDefinition<T>): BackfillHandle {
  return declareBackfill(definition);
}

/**
 * `backfill()`, with the functions its checksum hashes named apart (internal: `@Backfill` hashes the class's own
 * methods, not the wrappers that call them).
 */
export function declareBackfill<T>(
  definition: BackfillDefinition<T>,
  hashed?: BackfillChecksumSource,
): BackfillHandle {
  if (typeof definition !== 'object' || definition === null) {
    throw new BackfillDeclarationInvalidError('anonymous', 'definition', 'must be an object');
  }
  const resolved = resolve(definition, hashed);
  const tenant = resolved.tenant;
  const handle = job({
    name: resolved.name,
    input: t.object({ force: t.boolean.optional() }),
    idempotencyKey: () => resolved.name,
    tenant: tenant === 'none' ? 'none' : () => tenant(),
    ...(definition.queue === undefined ? {} : { queue: definition.queue }),
    ...(definition.retry === undefined ? {} : { retry: definition.retry }),
    ...(definition.timeout === undefined ? {} : { timeout: definition.timeout }),
    ...(definition.stepTimeout === undefined ? {} : { stepTimeout: definition.stepTimeout }),
    ...(definition.onSettled === undefined ? {} : { onSettled: definition.onSettled }),
    run: (args) => backfillPass(resolved, args),
  });
  stampBackfill(handle, resolved as ResolvedBackfill);
  return handle;
}
