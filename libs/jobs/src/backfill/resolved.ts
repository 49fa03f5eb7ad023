import type {
  BackfillDefinition,
  BackfillDescriptor,
  BackfillHandleArgs,
  BackfillSourceArgs,
} from '../declare/backfill-definition';
import type { Clock } from '../util/clock';
import type { BackfillRuntime } from './backfill-runtime';

/** A backfill declaration after every field was checked: what a pass runs and `registeredBackfills()` reports. */
export interface ResolvedBackfill<T = unknown> {
  /** The durable key: the job's name and the ledger's. */
  readonly name: string;
  /** Rows per page (default filled in). */
  readonly batch: number;
  /** Pages per second (default filled in). */
  readonly rate: number;
  /** The org every page is scoped to, or `'none'` for every tenant. */
  readonly tenant: 'none' | (() => string);
  /** The entity property paths to page on; undefined: the primary key. */
  readonly key: readonly string[] | undefined;
  /** Builds the rows' query for one page. */
  readonly source: (args: BackfillSourceArgs) => unknown;
  /** Does the work for one page of rows. */
  readonly handle: (args: BackfillHandleArgs<T>) => void | Promise<void>;
  /** Counts the rows `source` selects, when declared. */
  readonly count: ((args: BackfillSourceArgs) => number | Promise<number>) | undefined;
  /** The migration that must be applied first, if any. */
  readonly requires: string | undefined;
  /** The environments the sweep belongs to; undefined: every one. */
  readonly environments: readonly string[] | undefined;
  /** The definition checksum the ledger compares passes by. */
  readonly checksum: string;
  /** The clock the throttle waits on. */
  readonly clock: Clock;
  /** The declared ledger, environment and app version, if any. */
  readonly runtime: BackfillDefinition<T>['runtime'] | (() => BackfillRuntime) | undefined;
}

/** The manifest row of a resolved declaration. */
export function describeBackfill(b: ResolvedBackfill): BackfillDescriptor {
  return {
    kind: 'backfill',
    name: b.name,
    checksum: b.checksum,
    requires: b.requires ?? null,
    environments: b.environments === undefined ? null : [...b.environments],
    counts: b.count !== undefined,
    batch: b.batch,
    rate: b.rate,
  };
}
