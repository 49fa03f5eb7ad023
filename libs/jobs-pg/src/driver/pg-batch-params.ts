import type { EnqueueRequest } from '@ultimat3/jobs';
import { iso } from './pg-context';

/** An element of an array parameter: text, a number, or SQL NULL. */
type Element = string | number | null | undefined;

const QUOTED = /["\\]/g;

/** One element of an array literal: double-quoted with `"` and `\` escaped, or `NULL`. */
function element(value: Element): string {
  if (value === null || value === undefined) return 'NULL';
  const s = String(value);
  return `"${s.includes('"') || s.includes('\\') ? s.replace(QUOTED, '\\$&') : s}"`;
}

/**
 * The text of a PostgreSQL array literal holding `values` in order: every element double-quoted (so no value can end
 * an element or the array early, whatever it holds — commas, braces, `NULL`, line feeds), `"` and `\` escaped, null
 * as `NULL`. Built by hand because `pg` builds it element by element through its generic value preparation, which was
 * most of the driver's own time on a 1,000-row batch.
 */
export function arrayLiteral(values: readonly Element[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) text += ',';
    text += element(values[i]);
  }
  return `${text}}`;
}

/**
 * A column of `SQL_ENQUEUE_BATCH` that may stand for every request with one element: `values` as an array literal,
 * or, when they are all one value (a bulk batch's name, queue, due time, its nulls), that value alone.
 */
export function columnLiteral(values: readonly Element[]): string {
  const first = values[0];
  return values.length > 0 && values.every((value) => value === first)
    ? `{${element(first)}}`
    : arrayLiteral(values);
}

/**
 * The JSON inputs of a batch as one text, one input per line (see `SQL_ENQUEUE_BATCH`): `JSON.stringify` escapes every
 * control character, so no input holds a raw line feed. An input with no JSON text (none passes the value contract)
 * is an empty line, which the statement reads as NULL — refused by the column as before.
 */
export function inputLines(requests: readonly EnqueueRequest[]): string {
  return requests.map((r) => JSON.stringify(r.input) ?? '').join('\n');
}

/** The due times of a batch as a column; a batch mostly shares one due time, formatted once. */
function runAtLiteral(requests: readonly EnqueueRequest[]): string {
  let lastMs: number | undefined;
  let lastText = '';
  return columnLiteral(
    requests.map((r) => {
      if (r.runAt !== lastMs) {
        lastMs = r.runAt;
        lastText = iso(r.runAt);
      }
      return lastText;
    }),
  );
}

/** `$2 … $15` of `SQL_ENQUEUE_BATCH` for `requests`. */
export function batchParams(requests: readonly EnqueueRequest[]): string[] {
  const each = (pick: (r: EnqueueRequest) => Element): string => arrayLiteral(requests.map(pick));
  const column = (pick: (r: EnqueueRequest) => Element): string =>
    columnLiteral(requests.map(pick));
  return [
    each((r) => r.id),
    each((r) => r.runId),
    column((r) => r.name),
    column((r) => r.queue),
    inputLines(requests),
    each((r) => r.idempotencyKey),
    column((r) => r.tenantId),
    column((r) => r.enqueuedBy),
    runAtLiteral(requests),
    column((r) => r.maxAttempts),
    column((r) => r.priority),
    column((r) => r.concurrencyKey),
    column((r) => r.traceparent),
    column((r) => r.crossTenantReason ?? null),
  ];
}
