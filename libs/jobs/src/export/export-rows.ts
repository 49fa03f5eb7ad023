import { job } from '../declare/job';
import type { JobHandle } from '../declare/handle';
import type { InputOf, JobInputSchema, OutputOf } from '../declare/job-definition';
import { JobDeclarationInvalidError } from '../errors/declaration-errors';
import { InvariantError } from '../errors/runtime-errors';
import { systemClock } from '../util/clock';
import {
  checkedBatch,
  checkedFormat,
  checkedMaxPartBytes,
  checkedNames,
  checkedPrefix,
  checkedRate,
} from './export-checks';
import type { ExportDefinition, ExportResult } from './export-definition';
import { exportPass, type ResolvedExport } from './export-pass';

/** The handle `exportRows()` answers: a job over the declared input whose result is the export's counts. */
export type ExportHandle<S extends JobInputSchema> = JobHandle<
  InputOf<S>,
  OutputOf<S>,
  ExportResult
>;

function checkedFunctions(name: string, definition: object): void {
  for (const field of ['prefix', 'source', 'row'] as const) {
    const value = (definition as Record<string, unknown>)[field];
    if (typeof value !== 'function' && !(field === 'source' && value === undefined)) {
      throw new JobDeclarationInvalidError(name, field, 'must be a function');
    }
  }
  const sink: unknown = (definition as { sink?: unknown }).sink;
  if (
    typeof sink !== 'function' &&
    (typeof sink !== 'object' ||
      sink === null ||
      typeof (sink as { write?: unknown }).write !== 'function')
  ) {
    throw new JobDeclarationInvalidError(
      name,
      'sink',
      'must be an ExportSink or a function answering one',
    );
  }
}

/** Every field of a declaration checked, in the order a reader meets them. */
function resolve<S extends JobInputSchema, T, C extends string>(
  definition: ExportDefinition<S, T, C>,
): ResolvedExport<OutputOf<S>, T> {
  const name = typeof definition.name === 'string' ? definition.name : 'anonymous export';
  checkedFunctions(name, definition);
  const { key } = definition;
  return {
    name,
    format: checkedFormat(name, definition.format),
    columns: checkedNames(name, 'columns', definition.columns),
    row: definition.row,
    batch: checkedBatch(name, definition.batch),
    rate: checkedRate(name, definition.rate),
    maxPartBytes: checkedMaxPartBytes(name, definition.maxPartBytes),
    key:
      key === undefined
        ? undefined
        : checkedNames(name, 'key', typeof key === 'string' ? [key] : key),
    sink: definition.sink,
    clock: definition.clock ?? systemClock,
    prefixOf: (input) => checkedPrefix(name, definition.prefix(input)),
    source: definition.source ?? unbound(name),
  };
}

/** The source of a declaration that names none: a provider's `@ExportSource` method replaces it when bound. */
function unbound(name: string): () => never {
  return () => {
    throw new InvariantError(
      `export "${name}" declares no source and no @ExportSource method is bound to it.`,
      'Declare source, or decorate a provider method with @ExportSource(handle).',
    );
  };
}

/** The checked declaration of each export handle that declared no `source` (what `@ExportSource` binds over). */
const unboundExports = new WeakMap<object, ResolvedExport<never, unknown>>();

/** The checked declaration of an export handle awaiting an `@ExportSource` method, if it is one. */
export function unboundExportOf(handle: object): ResolvedExport<never, unknown> | undefined {
  return unboundExports.get(handle);
}

/**
 * Declares an export: a job that streams a TypeORM source to an {@link ExportSink} in keyset pages of `batch` rows,
 * one object per page (`<prefix>/part-00000.csv` …) and a `manifest.json` that counts them, in constant memory. Each
 * page is its own step checkpointing a cursor and counters (never rows), so a killed worker resumes at the page it
 * was on and a page run twice rewrites its own part. CSV cells a spreadsheet would evaluate are neutralised; a
 * `row()` key outside `columns` is `X_EXPORT_ROW_INVALID`. The prefix is the idempotency key. Every field is
 * checked here (`X_JOB_DECLARATION_INVALID`).
 */
export function exportRows<S extends JobInputSchema, T, C extends string>(
  definition: ExportDefinition<S, T, C>,
): ExportHandle<S> {
  if (typeof definition !== 'object' || definition === null) {
    throw new JobDeclarationInvalidError('anonymous export', 'definition', 'must be an object');
  }
  const resolved = resolve(definition);
  const tenant = definition.tenant;
  const bindable = definition.source === undefined;
  const handle = job<S, ExportResult>({
    name: definition.name,
    input: definition.input,
    idempotencyKey: (input: OutputOf<S>) => resolved.prefixOf(input),
    tenant,
    ...(definition.queue === undefined ? {} : { queue: definition.queue }),
    ...(definition.retry === undefined ? {} : { retry: definition.retry }),
    ...(definition.timeout === undefined ? {} : { timeout: definition.timeout }),
    ...(definition.stepTimeout === undefined ? {} : { stepTimeout: definition.stepTimeout }),
    ...(definition.onSettled === undefined ? {} : { onSettled: definition.onSettled }),
    // without a source the body is a provider's @ExportSource method, bound as a @Job method is
    ...(bindable ? {} : { run: (args) => exportPass(resolved, args) }),
  });
  if (bindable) unboundExports.set(handle, resolved as ResolvedExport<never, unknown>);
  return handle;
}
