/** The formats an export writes. */
export type ExportFormat = 'csv' | 'jsonl';

/** The digits a part's index is padded to: `part-00000` … `part-99999` sort (and glob) in page order. */
export const EXPORT_PART_DIGITS = 5;

/** The most parts one export writes: past it the padding would grow and `part-*` would glob out of page order. */
export const MAX_EXPORT_PARTS = 10 ** EXPORT_PART_DIGITS;

/**
 * The key of part `index`: `<prefix>/part-00042.csv`. The manifest counts parts and never lists them — this rebuilds
 * every key from the count.
 */
export function exportPartKey(prefix: string, index: number, format: ExportFormat): string {
  return `${prefix}/part-${String(index).padStart(EXPORT_PART_DIGITS, '0')}.${format}`;
}

/** The key of the manifest: `<prefix>/manifest.json`, written once, after the last part. */
export function exportManifestKey(prefix: string): string {
  return `${prefix}/manifest.json`;
}

/** What `manifest.json` holds: counts, never a list of parts (a list is the one thing that would grow with the export). */
export interface ExportManifest {
  /** The manifest format version. */
  readonly version: 1;
  /** The export's job name. */
  readonly name: string;
  /** The encoding of the parts. */
  readonly format: ExportFormat;
  /** The columns, in order. */
  readonly columns: readonly string[];
  /**
   * Parts `0 … parts - 1`, keyed by {@link exportPartKey}. The last is the short page that ended the export, so it may
   * be empty (zero bytes; the CSV header alone when it is part 0).
   */
  readonly parts: number;
  /** Data rows across every part (the CSV header is not one). */
  readonly rows: number;
  /** Bytes across every part. */
  readonly bytes: number;
  /** Whether part 0 starts with a header line (CSV). */
  readonly header: boolean;
  /** When the last part was written (ms since the epoch, the export's clock). */
  readonly completedAtMs: number;
}

/** The content type of a part. */
export function exportContentType(format: ExportFormat): string {
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}
