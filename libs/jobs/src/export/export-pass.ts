import { readKeysetPage, type KeysetCursor } from '../backfill/keyset-source';
import { throttle } from '../backfill/throttle';
import type { RunArgs } from '../declare/run-args';
import { InvariantError } from '../errors/runtime-errors';
import type { Clock } from '../util/clock';
import type { ExportResult, ExportSourceArgs } from './export-definition';
import { encodePage, type ExportEncoding } from './export-encode';
import {
  exportContentType,
  exportManifestKey,
  exportPartKey,
  MAX_EXPORT_PARTS,
  type ExportFormat,
  type ExportManifest,
} from './export-keys';
import type { ExportSink, ExportSinkSource } from './export-sink';

/** A declaration, checked (`exportRows()` resolves it once). */
export interface ResolvedExport<I, T> extends ExportEncoding<T> {
  readonly rate: number | undefined;
  readonly key: readonly string[] | undefined;
  readonly sink: ExportSinkSource;
  readonly clock: Clock;
  /** The checked prefix of an input. */
  readonly prefixOf: (input: I) => string;
  readonly source: (args: ExportSourceArgs<I>) => unknown;
}

/** What each page's step checkpoints: the cursor and counters, never the rows (a step's output lives as long as the run). */
export interface ExportCheckpoint {
  readonly cursor: KeysetCursor | null;
  readonly rows: number;
  readonly parts: number;
  readonly bytes: number;
  readonly done: boolean;
}

const START: ExportCheckpoint = { cursor: null, rows: 0, parts: 0, bytes: 0, done: false };

function sinkOf(source: ExportSinkSource, name: string): ExportSink {
  const sink: unknown = typeof source === 'function' ? source() : source;
  if (
    typeof sink !== 'object' ||
    sink === null ||
    typeof (sink as ExportSink).write !== 'function'
  ) {
    throw new InvariantError(
      `export "${name}": sink() answered no ExportSink.`,
      'Answer an object with write(key, body, options).',
    );
  }
  return sink as ExportSink;
}

/**
 * The body `exportRows()` declares. Page N is one `step.run('page:N')`: read the keyset page after the stored cursor,
 * encode it (the header on page 0 only), write it whole as part N, pace, checkpoint the cursor and counters. A
 * resumed attempt replays the stored checkpoints without a read or a write, and a page whose checkpoint never landed
 * runs again from the same cursor — the same rows to the same key, so its part is rewritten, never duplicated. One
 * page's rows and bytes are all the heap ever holds. The first short page (written even when empty) is the last;
 * then a `manifest` step writes the counts.
 */
export async function exportPass<I, T>(
  resolved: ResolvedExport<I, T>,
  args: RunArgs<I>,
): Promise<ExportResult> {
  const prefix = resolved.prefixOf(args.input);
  let state = START;
  for (let page = 0; !state.done; page++) {
    if (page >= MAX_EXPORT_PARTS) {
      throw new InvariantError(
        `export "${resolved.name}": more than ${MAX_EXPORT_PARTS} parts.`,
        'Raise batch: part keys are padded to 5 digits so that part-* globs in page order.',
      );
    }
    const from = state;
    state = await args.step.run(`page:${page}`, (signal) =>
      runPage(resolved, args, prefix, page, from, signal),
    );
  }
  const manifestKey = exportManifestKey(prefix);
  const last = state;
  const written = await args.step.run('manifest', async (signal): Promise<ManifestStep> => {
    const sink = sinkOf(resolved.sink, resolved.name);
    // before the manifest: a reader that finds this manifest finds no part past its count
    const staleParts = await removeStaleParts(sink, prefix, last.parts, resolved.format, signal);
    const manifest: ExportManifest = {
      version: 1,
      name: resolved.name,
      format: resolved.format,
      columns: resolved.columns,
      parts: last.parts,
      rows: last.rows,
      bytes: last.bytes,
      header: resolved.format === 'csv',
      completedAtMs: resolved.clock.now(),
    };
    const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    await sink.write(manifestKey, body, { contentType: 'application/json', signal });
    return { parts: last.parts, staleParts };
  });
  return {
    prefix,
    format: resolved.format,
    parts: state.parts,
    rows: state.rows,
    bytes: state.bytes,
    manifestKey,
    // a manifest step checkpointed before stale parts were removed answers none
    staleParts: written.staleParts ?? 0,
  };
}

/** What the manifest step checkpoints. */
interface ManifestStep {
  readonly parts: number;
  readonly staleParts?: number;
}

/**
 * Removes the parts past `parts` that an earlier, larger export under `prefix` left, when the sink can remove: from
 * part `parts` on, until the first that is absent (an export's parts are `0 … n - 1`, so the first gap ends them).
 * Answers how many it removed. Run again (the step's checkpoint never landed), it finds the first one gone and stops.
 */
async function removeStaleParts(
  sink: ExportSink,
  prefix: string,
  parts: number,
  format: ExportFormat,
  signal: AbortSignal,
): Promise<number> {
  if (typeof sink.remove !== 'function') return 0;
  let removed = 0;
  for (let index = parts; index < MAX_EXPORT_PARTS; index++) {
    signal.throwIfAborted();
    if (!(await sink.remove(exportPartKey(prefix, index, format), { signal }))) break;
    removed++;
  }
  return removed;
}

/** One page read and encoded: its part's bytes, how many rows it held and the cursor after them. */
interface EncodedPage {
  readonly body: Buffer;
  readonly rows: number;
  readonly cursor: KeysetCursor | null;
}

/**
 * Reads one page and encodes it. Only the bytes and two numbers leave: the rows (and the driver's raw rows under them)
 * are garbage before the part is written, so a slow write (fsync, an upload) never keeps them alive long enough for
 * the collector to move them into the old generation, whose committed size is what the worker's RSS follows.
 */
async function readAndEncode<I, T>(
  resolved: ResolvedExport<I, T>,
  args: RunArgs<I>,
  page: number,
  after: KeysetCursor | null,
): Promise<EncodedPage> {
  const source = resolved.source({ input: args.input, ctx: args.ctx });
  const read = await readKeysetPage<T>(
    resolved.name,
    source,
    resolved.key,
    after,
    resolved.batch,
    'export',
  );
  return {
    body: encodePage(resolved, page, read.rows),
    rows: read.rows.length,
    cursor: read.cursor,
  };
}

/** Reads, encodes, writes and paces one page; answers the checkpoint after it. */
async function runPage<I, T>(
  resolved: ResolvedExport<I, T>,
  args: RunArgs<I>,
  prefix: string,
  page: number,
  from: ExportCheckpoint,
  signal: AbortSignal,
): Promise<ExportCheckpoint> {
  const startedMs = resolved.clock.now();
  const encoded = await readAndEncode(resolved, args, page, from.cursor);
  // Every page is written, an empty one too (the CSV header alone on page 0, else zero bytes): the short page that
  // ends the export overwrites whatever an earlier attempt left at its index — rows since deleted from the source —
  // so no part past the manifest's count can survive for `cat part-*` to pick up.
  await sinkOf(resolved.sink, resolved.name).write(
    exportPartKey(prefix, page, resolved.format),
    encoded.body,
    {
      contentType: exportContentType(resolved.format),
      signal,
    },
  );
  const next: ExportCheckpoint = {
    cursor: encoded.cursor ?? from.cursor,
    rows: from.rows + encoded.rows,
    parts: page + 1,
    bytes: from.bytes + encoded.body.byteLength,
    done: encoded.rows < resolved.batch,
  };
  // the pause is spent inside the step: a resumed attempt replays this checkpoint and re-pays nothing
  if (!next.done && resolved.rate !== undefined)
    await throttle(resolved.clock, resolved.rate, startedMs, signal);
  return next;
}
