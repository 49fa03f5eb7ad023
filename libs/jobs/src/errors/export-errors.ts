import { JobsError } from './jobs-error';

/**
 * One page of an export encoded past `maxPartBytes` before it was written. The bound is a heap bound (a page is
 * encoded whole, in memory, before the sink sees it), so the fix is fewer rows per page: `meta.suggestedBatch` is a
 * batch the page's measured row size fits under the bound. Terminal: the same page encodes the same on every attempt.
 */
export class ExportPartTooLargeError extends JobsError {
  constructor(
    exportName: string,
    page: number,
    detail: {
      readonly batch: number;
      readonly rows: number;
      readonly bytes: number;
      readonly maxPartBytes: number;
    },
  ) {
    const perRow = detail.bytes / Math.max(1, detail.rows);
    // four fifths of what the measured rows fit: headroom for the longer rows of the next pages
    const suggestedBatch = Math.max(1, Math.floor((detail.maxPartBytes / perRow) * 0.8));
    super(
      'X_EXPORT_PART_TOO_LARGE',
      `export "${exportName}": page ${page} reached ${detail.bytes} bytes after ${detail.rows} of its rows, past maxPartBytes ${detail.maxPartBytes}.`,
      {
        fix: `Lower batch from ${detail.batch} to ${suggestedBatch} or less (or raise maxPartBytes if the worker's heap allows).`,
        meta: { export: exportName, page, ...detail, suggestedBatch },
      },
    );
  }
}

/**
 * `row()` answered a key outside `columns`, a value that is no cell, or no object at all — what an encoder would drop
 * or mangle in silence. A stray key is refused rather than dropped because `row: (r) => ({ ...r })` picks up every
 * column a later migration adds. Terminal: the same row maps the same on every attempt.
 */
export class ExportRowInvalidError extends JobsError {
  constructor(exportName: string, detail: string, key: string | null) {
    super('X_EXPORT_ROW_INVALID', `export "${exportName}": row() answered ${detail}.`, {
      fix:
        key === null
          ? 'Answer a plain object of cells (string, number, bigint, boolean, Date or null) keyed by columns.'
          : `Add "${key}" to columns, or leave it out of what row() answers.`,
      meta: { export: exportName, key },
    });
  }
}
