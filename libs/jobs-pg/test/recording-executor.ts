import type { PgExecutor, PgQueryResult } from '../src/executor/pg-executor';

/** The ids of a binary `uuid[]` (see `uuidArray`): after a 20-byte header, each a 4-byte length and 16 bytes. */
const binaryIds = (array: Buffer): string[] =>
  Array.from({ length: array.readInt32BE(12) }, (_, i) => {
    const hex = array.toString('hex', 24 + i * 20, 40 + i * 20);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  });

/**
 * The ids an enqueue statement carried: its id array (an array, the binary array the batch statements take, or an
 * array literal), or the one id of the single-row statement.
 */
export const idsOf = (values: readonly unknown[]): string[] => {
  const ids = values[1];
  if (Array.isArray(ids)) return ids as string[];
  if (Buffer.isBuffer(ids)) return binaryIds(ids);
  const text = String(ids);
  return text.startsWith('{')
    ? text
        .slice(1, -1)
        .split(',')
        .map((id) => id.replace(/"/g, ''))
    : [text];
};

/** How many requests an enqueue statement carried. */
export const rowsOf = (values: readonly unknown[]): number => idsOf(values).length;

/** A shared executor that records the statements it runs (their row counts), failing those `fail` picks with `error`. */
export function recording(
  executor: PgExecutor,
  fail: (values: readonly unknown[]) => boolean = () => false,
  error: unknown = new Error('connection terminated unexpectedly'),
): PgExecutor & { readonly statements: number[] } {
  const statements: number[] = [];
  return {
    shared: true,
    statements,
    query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
      statements.push(rowsOf(values));
      if (fail(values)) return Promise.reject(error);
      return executor.query<R>(text, values);
    },
  };
}
