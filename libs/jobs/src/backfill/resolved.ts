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
  readonly name: string;
  readonly batch: number;
  readonly rate: number;
  readonly tenant: 'none' | (() => string);
  readonly key: readonly string[] | undefined;
  readonly source: (args: BackfillSourceArgs) => unknown;
  readonly handle: (args: BackfillHandleArgs<T>) => void | Promise<void>;
  readonly count: ((args: BackfillSourceArgs) => number | Promise<number>) | undefined;
  readonly requires: string | undefined;
  readonly environments: readonly string[] | undefined;
  readonly checksum: string;
  readonly clock: Clock;
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
