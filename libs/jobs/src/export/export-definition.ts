import type { BackfillSource } from '../backfill/keyset-source';
import type { InputOf, JobInputSchema, OutputOf } from '../declare/job-definition';
import type { RetryPolicy } from '../declare/retry-policy';
import type { JobRunContext, JobSettled } from '../declare/run-args';
import type { Clock } from '../util/clock';
import type { Duration } from '../util/duration';
import type { ExportRow } from './export-encode';
import type { ExportFormat } from './export-keys';
import type { ExportSinkSource } from './export-sink';

/** What `source` receives: the parsed input and the run's context (its actor carries the export's tenant). */
export interface ExportSourceArgs<I> {
  /** The parsed input. */
  readonly input: I;
  /** The run's context; its actor carries the export's tenant. */
  readonly ctx: JobRunContext;
}

/** What `exportRows()` takes. */
export interface ExportDefinition<S extends JobInputSchema, T, C extends string> {
  /** REQUIRED: the job's durable name. */
  readonly name: string;
  /** The input schema (any Standard Schema, or a DTO class), as on `job()`. */
  readonly input: S;
  /**
   * REQUIRED, as on `job()`: the org whose rows this export concentrates into one downloadable object, from the
   * input — the security boundary of the feature. `'none'` declares no tenant and opens NO cross-tenant scope (unlike
   * a backfill's): the source reads under whatever the app's own scoping allows.
   */
  readonly tenant: ((input: OutputOf<S>) => string) | 'none';
  /**
   * Where the objects go (`exports/${orgId}/${exportId}`): `/`-separated, no empty, `.` or `..` segment, no leading
   * `/` nor trailing one. It is also the job's idempotency key: re-enqueueing a live export is that export.
   */
  readonly prefix: (input: OutputOf<S>) => string;
  /**
   * The rows: a TypeORM `SelectQueryBuilder` (its where, joins and selects; ORDER BY, LIMIT and OFFSET are replaced by
   * the keyset's), or `{ repository, where }`. Built anew for every page, read as a backfill reads it. Omit it to
   * bind a Nest provider's method instead (`@ExportSource(handle)`, with its injected `DataSource` at hand).
   */
  readonly source?: (args: ExportSourceArgs<OutputOf<S>>) => BackfillSource<T>;
  /** How the parts are encoded. */
  readonly format: ExportFormat;
  /** The columns, in order: the CSV header and the keys of each JSON line. Non-empty, unique. */
  readonly columns: readonly C[];
  /**
   * Maps one entity to its cells — formatting happens HERE, where the app knows a date's zone and an amount's
   * currency. A key outside `columns` is `X_EXPORT_ROW_INVALID` (never dropped in silence); a column left out is empty.
   */
  readonly row: (entity: T) => ExportRow<C>;
  /** Where the objects are written, or a thunk read per write (a sink configured after import). */
  readonly sink: ExportSinkSource;
  /** Rows per page, per step and per part (default 1,000): a whole number from 1 to 100,000. */
  readonly batch?: number;
  /** Pages per second (fractions allowed). No default: declare it for an export big enough to matter to the pool. */
  readonly rate?: number;
  /**
   * The most bytes one part may encode to (default 64 MiB): a HEAP bound, since a page is encoded whole before it is
   * written. Past it, `X_EXPORT_PART_TOO_LARGE` names the batch to lower.
   */
  readonly maxPartBytes?: number;
  /** The ordered unique key to page on, as entity property paths (default the entity's primary key). */
  readonly key?: string | readonly string[];
  /** The queue the export runs on (default the job default). */
  readonly queue?: string;
  /** How a failed attempt is retried, as on `job()`. */
  readonly retry?: RetryPolicy;
  /** Bounds one attempt. */
  readonly timeout?: Duration;
  /** Bounds one page (read, encode, write and pause). */
  readonly stepTimeout?: Duration;
  /** Told once the export ends (its result on `completed`), as a job's `onSettled` is. */
  readonly onSettled?: (settled: JobSettled<OutputOf<S>, ExportResult>) => void | Promise<void>;
  /** The clock the throttle waits on and the manifest's time is read from (default the system clock). */
  readonly clock?: Clock;
}

/** What an export answers once its manifest is written. */
export interface ExportResult {
  /** The key prefix the objects were written under. */
  readonly prefix: string;
  /** The encoding of the parts. */
  readonly format: ExportFormat;
  /** How many parts were written. */
  readonly parts: number;
  /** Data rows across every part. */
  readonly rows: number;
  /** Bytes across every part. */
  readonly bytes: number;
  /** The key of the written `manifest.json`. */
  readonly manifestKey: string;
  /**
   * Parts past `parts` that an earlier, larger export under the same prefix had left, removed before the manifest
   * (0 when the sink has no `remove`).
   */
  readonly staleParts: number;
}

/** The enqueue input of an export declared over schema `S`. */
export type ExportInput<S extends JobInputSchema> = InputOf<S>;
