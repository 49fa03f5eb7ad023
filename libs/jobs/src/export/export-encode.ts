import { ExportPartTooLargeError, ExportRowInvalidError } from '../errors/export-errors';
import type { ExportFormat } from './export-keys';

/** One cell `row()` may answer. `null` and `undefined` are an empty CSV cell and a JSON `null`. */
export type ExportCell = string | number | bigint | boolean | Date | null | undefined;

/** What `row()` answers: cells keyed by column (a column left out is empty; a key outside `columns` is refused). */
export type ExportRow<C extends string = string> = Partial<Readonly<Record<C, ExportCell>>>;

/** What the encoder needs of a declaration. */
export interface ExportEncoding<T> {
  readonly name: string;
  readonly format: ExportFormat;
  readonly columns: readonly string[];
  readonly row: (entity: T) => unknown;
  readonly batch: number;
  readonly maxPartBytes: number;
}

/** The first characters a spreadsheet evaluates as a formula (or a DDE call): `=`, `+`, `-`, `@`, TAB, CR. */
const FORMULA_LEAD = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A string cell as CSV: one leading formula character is defused with a `'` (the OWASP CSV-injection rule: Excel,
 * Sheets and LibreOffice show it as text), then RFC 4180 quoting when it holds a quote, comma or line break.
 */
export function csvText(value: string): string {
  const safe = FORMULA_LEAD.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvCell(value: ExportCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return csvText(value);
  if (value instanceof Date) return value.toISOString();
  // a number stays a number: -3 is data, not a formula
  return String(value);
}

function jsonCell(value: ExportCell): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  return value;
}

/** A cell `row()` answered, checked: a value no encoder would change in silence. */
function checkedCell(name: string, key: string, value: unknown): ExportCell {
  if (value === null || value === undefined) return value;
  switch (typeof value) {
    case 'string':
    case 'bigint':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      break;
    default:
      if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  }
  const shown =
    typeof value === 'number' ? String(value) : Array.isArray(value) ? 'an array' : typeof value;
  throw new ExportRowInvalidError(name, `${shown} for column "${key}", which is no cell`, null);
}

/** One row mapped and checked, as its cells in column order. */
function cellsOf<T>(
  encoding: ExportEncoding<T>,
  columnSet: ReadonlySet<string>,
  entity: T,
): ExportCell[] {
  const mapped: unknown = encoding.row(entity);
  if (typeof mapped !== 'object' || mapped === null || Array.isArray(mapped)) {
    const shown = mapped === null ? 'null' : Array.isArray(mapped) ? 'an array' : typeof mapped;
    throw new ExportRowInvalidError(encoding.name, `${shown} instead of an object of cells`, null);
  }
  const record = mapped as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!columnSet.has(key)) {
      throw new ExportRowInvalidError(
        encoding.name,
        `key "${key}", which columns does not carry`,
        key,
      );
    }
  }
  // own keys only: a column named `constructor` or `toString` that the row leaves out is empty, not Object's method
  return encoding.columns.map((column) =>
    checkedCell(encoding.name, column, Object.hasOwn(record, column) ? record[column] : undefined),
  );
}

/** The header line of a CSV export (part 0 only). */
export function csvHeader(columns: readonly string[]): string {
  return `${columns.map(csvText).join(',')}\n`;
}

/** One encoded line, newline-terminated (so `cat part-*` is one valid file). */
function lineOf(
  format: ExportFormat,
  columns: readonly string[],
  cells: readonly ExportCell[],
): string {
  if (format === 'csv') return `${cells.map(csvCell).join(',')}\n`;
  // no prototype: a column named `__proto__` is a key of the line, where `{}` would take it as its prototype's setter
  const object = Object.create(null) as Record<string, string | number | boolean | null>;
  columns.forEach((column, i) => (object[column] = jsonCell(cells[i])));
  return `${JSON.stringify(object)}\n`;
}

/**
 * Encodes one page as the bytes of its part: the CSV header first on page 0, then one newline-terminated line per
 * row. The running size is checked after every line, so a page past `maxPartBytes` stops growing the heap at the
 * bound (`X_EXPORT_PART_TOO_LARGE`, naming a batch that fits) instead of after the whole page.
 */
export function encodePage<T>(
  encoding: ExportEncoding<T>,
  page: number,
  rows: readonly T[],
): Buffer {
  const columnSet = new Set(encoding.columns);
  const lines: string[] = [];
  let bytes = 0;
  const push = (line: string, rowsSoFar: number): void => {
    bytes += Buffer.byteLength(line, 'utf8');
    if (bytes > encoding.maxPartBytes) {
      throw new ExportPartTooLargeError(encoding.name, page, {
        batch: encoding.batch,
        rows: rowsSoFar,
        bytes,
        maxPartBytes: encoding.maxPartBytes,
      });
    }
    lines.push(line);
  };
  if (page === 0 && encoding.format === 'csv') push(csvHeader(encoding.columns), 1);
  rows.forEach((entity, i) =>
    push(lineOf(encoding.format, encoding.columns, cellsOf(encoding, columnSet, entity)), i + 1),
  );
  return Buffer.from(lines.join(''), 'utf8');
}
