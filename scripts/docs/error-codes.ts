/**
 * `npm run docs:errors`: rewrites the README's error code table from the error classes of the libraries — each
 * exported class extending `JobsError`, its code, the first sentence of its TSDoc, and the HTTP status
 * `JobsErrorFilter` answers for it. `libs/jobs/src/errors/error-table.spec.ts` fails when the README's table differs
 * from what this writes.
 *
 * A class must pass its code to `super()` literally (or as a conditional of literals, listed once per code); one that
 * computes it is refused with its name, since no table could say which code it throws.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobsErrorHttpStatus } from '../../libs/jobs/src/nest/http/jobs-error.status';
import {
  collectErrorClasses,
  errorCodeUnion,
  librarySources,
  type ErrorClassDoc,
} from './error-classes';

/** The line before the generated table. */
export const ERROR_TABLE_START = '<!-- error-codes:start -->';
/** The line after it. */
export const ERROR_TABLE_END = '<!-- error-codes:end -->';
/** Where `JobsErrorCode` is declared, relative to the repository root. */
export const ERROR_CODE_UNION_FILE = 'libs/jobs/src/errors/jobs-error.ts';

/** The repository root (this file is `scripts/docs/error-codes.ts`). */
export const REPO_ROOT = join(__dirname, '..', '..');

/** One row of the table: a class and one of its codes. */
export interface ErrorTableRow {
  readonly code: string;
  readonly status: number;
  readonly className: string;
  readonly summary: string;
}

/** One row per class and code, sorted by code then class. */
export function errorTableRows(classes: readonly ErrorClassDoc[]): ErrorTableRow[] {
  return classes
    .flatMap((c) =>
      c.codes.map((code) => ({
        code,
        status: jobsErrorHttpStatus(code),
        className: c.className,
        summary: c.summary,
      })),
    )
    .sort((a, b) => a.code.localeCompare(b.code) || a.className.localeCompare(b.className));
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The rows as a Markdown table, its columns padded the way Prettier pads them (so `prettier --check` agrees). */
export function renderErrorTable(rows: readonly ErrorTableRow[]): string {
  const table = [
    ['code', 'HTTP', 'class', 'what happened'],
    ...rows.map((r) => [`\`${r.code}\``, String(r.status), `\`${r.className}\``, cell(r.summary)]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(3, ...table.map((row) => [...row[i]!].length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((text, i) => text + ' '.repeat(widths[i]! - [...text].length)).join(' | ')} |`;
  const rule = `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`;
  return [line(table[0]!), rule, ...table.slice(1).map(line)].join('\n');
}

/** The generated table of the repository at `root`, as it belongs between the markers. */
export function errorTableOf(root: string = REPO_ROOT): string {
  return renderErrorTable(errorTableRows(collectErrorClasses(librarySources(root))));
}

/** Codes of the `JobsErrorCode` union no class carries, and class codes the union lacks. */
export function errorCodeMismatches(root: string = REPO_ROOT): {
  readonly withoutClass: string[];
  readonly notInUnion: string[];
} {
  const file = join(root, ERROR_CODE_UNION_FILE);
  const union = errorCodeUnion({ path: ERROR_CODE_UNION_FILE, text: readFileSync(file, 'utf8') });
  const carried = new Set(collectErrorClasses(librarySources(root)).flatMap((c) => c.codes));
  return {
    withoutClass: union.filter((code) => !carried.has(code)),
    notInUnion: [...carried].filter((code) => !union.includes(code)).sort(),
  };
}

function markerOffsets(markdown: string): { readonly from: number; readonly to: number } {
  const start = markdown.indexOf(ERROR_TABLE_START);
  const end = markdown.indexOf(ERROR_TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`README.md has no ${ERROR_TABLE_START} … ${ERROR_TABLE_END} block`);
  }
  return { from: start + ERROR_TABLE_START.length, to: end };
}

/** What the README holds between the markers, without the blank lines around it. */
export function readErrorTableBlock(markdown: string): string {
  const { from, to } = markerOffsets(markdown);
  return markdown.slice(from, to).trim();
}

/** The README with `table` between the markers, a blank line either side. */
export function withErrorTable(markdown: string, table: string): string {
  const { from, to } = markerOffsets(markdown);
  return `${markdown.slice(0, from)}\n\n${table}\n\n${markdown.slice(to)}`;
}

function main(): void {
  const readme = join(REPO_ROOT, 'README.md');
  const before = readFileSync(readme, 'utf8');
  const after = withErrorTable(before, errorTableOf());
  if (after === before) {
    console.log('README.md: the error code table is up to date');
    return;
  }
  writeFileSync(readme, after);
  console.log('README.md: error code table rewritten');
}

if (require.main === module) main();
