import Table from 'cli-table3';

/** Where a command writes: stdout for answers, stderr for errors and notes. */
export interface CliStreams {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** The process's own streams. */
export const processStreams: CliStreams = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** No rule between rows: one line per row, as `grep` and `wc -l` expect. */
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

/** A plain table (no colours: the output is read by people and by `grep` alike), one line per row. */
export function table(head: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const t = new Table({ head: [...head], chars: COMPACT, style: { head: [], border: [] } });
  for (const row of rows) t.push(row.map(cell));
  return t.toString();
}

/** Key / value lines of one record, as a two-column table; a field with no value is left out. */
export function record(entries: readonly (readonly [string, unknown])[]): string {
  const t = new Table({ chars: COMPACT, style: { head: [], border: [] } });
  for (const [key, value] of entries) if (cell(value) !== '') t.push({ [key]: cell(value) });
  return t.toString();
}

/** One cell: empty for null or undefined, JSON for an object, the text otherwise. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** An epoch-ms instant as ISO 8601 (UTC), or '' for null. */
export function when(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '' : new Date(ms).toISOString();
}

/** A duration in ms, short: `850 ms`, `12.4 s`, `3.0 min`. */
export function span(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}
