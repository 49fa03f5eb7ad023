/**
 * Keyset paging over a TypeORM source, written structurally: `typeorm` is an optional peer and core never imports it,
 * so these types name only the parts of a `SelectQueryBuilder` / `Repository` a backfill calls — a real one is
 * assignable to them.
 */
import { InvariantError } from '../errors/runtime-errors';

/** The part of a TypeORM `ColumnMetadata` the keyset reads. */
export interface KeysetColumnLike {
  /** The column's property path on the entity (`id`, `createdAt`). */
  readonly propertyPath: string;
  /** Reads this column's value from a loaded entity. */
  getEntityValue(entity: object): unknown;
  /** The column's declared type (`'timestamp'`, `'timestamptz'`, `Date`, …): a timestamp's cursor is bound as a Date. */
  readonly type?: unknown;
}

/** The part of a TypeORM `SelectQueryBuilder` a backfill pages with. */
export interface SelectQueryLike<T> {
  /** The alias of the main entity, which the key columns are qualified with. */
  readonly alias: string;
  /** The builder's state: its where conditions (bracketed before the keyset's is added) and main entity metadata. */
  readonly expressionMap: {
    wheres: unknown[];
    readonly mainAlias?: {
      readonly hasMetadata: boolean;
      readonly metadata: {
        readonly primaryColumns: readonly KeysetColumnLike[];
        findColumnWithPropertyPath(path: string): KeysetColumnLike | undefined;
      };
    };
  };
  /** A copy the page reshapes, leaving the source's own builder untouched. */
  clone(): SelectQueryLike<T>;
  /** Sets the where condition (a repository source's `where`). */
  where(where: string | object | object[], parameters?: Record<string, unknown>): unknown;
  /** Adds the keyset's `key > cursor` condition. */
  andWhere(where: string, parameters?: Record<string, unknown>): unknown;
  /** Clears the source's own ordering. */
  orderBy(): unknown;
  /** Orders by one key column. */
  addOrderBy(sort: string, order?: 'ASC' | 'DESC'): unknown;
  /** Caps the page's rows. */
  take(take?: number): unknown;
  /** Clears the source's own skip (called with undefined). */
  skip(skip?: number): unknown;
  /** Clears the source's own LIMIT (called with undefined). */
  limit(limit?: number): unknown;
  /** Clears the source's own OFFSET (called with undefined). */
  offset(offset?: number): unknown;
  /** Runs the query and answers the page's entities. */
  getMany(): Promise<T[]>;
}

/** The part of a TypeORM `Repository` a backfill reads through. */
export interface RepositoryLike<T> {
  /** A fresh query builder over the repository's entity (the backfill passes the alias `backfill_row`). */
  createQueryBuilder(alias?: string): SelectQueryLike<T>;
}

/** A repository and the rows of it to sweep (a TypeORM `where`: an object, or an array of them for OR). */
export interface RepositorySource<T> {
  /** The repository to sweep. */
  readonly repository: RepositoryLike<T>;
  /** Which rows to sweep: a TypeORM `where` (an array of them for OR); default every row. */
  readonly where?: object | readonly object[];
}

/**
 * What a backfill sweeps: a TypeORM `SelectQueryBuilder` (its own where, joins and selects; its ORDER BY, LIMIT and
 * OFFSET are replaced by the keyset's), or a repository with a where-clause.
 */
export type BackfillSource<T> = SelectQueryLike<T> | RepositorySource<T>;

/** A keyset cursor: the key values of the last row handled, in key order. */
export type KeysetCursor = readonly (string | number)[];

/** One page: its rows, and the cursor after its last row (null for an empty page). */
export interface KeysetPage<T> {
  /** The page's rows, in key order. */
  readonly rows: readonly T[];
  /** The key values of the last row, or null for an empty page. */
  readonly cursor: KeysetCursor | null;
}

const PARAM = 'x_backfill_after';

function isRepositorySource<T>(source: BackfillSource<T>): source is RepositorySource<T> {
  return typeof (source as Partial<RepositorySource<T>>).repository === 'object';
}

/** The query builder of a source, as a fresh copy this page may reshape. */
function queryOf<T>(backfill: string, source: unknown, kind: string): SelectQueryLike<T> {
  if (typeof source !== 'object' || source === null) {
    throw new InvariantError(
      `${kind} "${backfill}": source() answered ${source === null ? 'null' : typeof source}.`,
      'Answer a TypeORM SelectQueryBuilder, or { repository, where }.',
    );
  }
  const typed = source as BackfillSource<T>;
  if (isRepositorySource(typed)) {
    const qb = typed.repository.createQueryBuilder('backfill_row');
    if (typed.where !== undefined) qb.where(typed.where as object | object[]);
    return qb;
  }
  if (typeof typed.clone !== 'function' || typeof typed.getMany !== 'function') {
    throw new InvariantError(
      `${kind} "${backfill}": source() answered neither a SelectQueryBuilder nor { repository, where }.`,
    );
  }
  return typed.clone();
}

/** The key columns: the declared property paths, or the entity's primary columns. */
function keyColumns(
  kind: string,
  backfill: string,
  qb: SelectQueryLike<unknown>,
  key: readonly string[] | undefined,
): readonly KeysetColumnLike[] {
  const main = qb.expressionMap.mainAlias;
  if (main === undefined || !main.hasMetadata) {
    throw new InvariantError(
      `${kind} "${backfill}": the source selects from no entity, so it has no key to page on.`,
      'Build the source from a repository or an entity (dataSource.getRepository(Post).createQueryBuilder("post")).',
    );
  }
  const columns =
    key === undefined
      ? main.metadata.primaryColumns
      : key.map((path) => {
          const column = main.metadata.findColumnWithPropertyPath(path);
          if (column === undefined) {
            throw new InvariantError(
              `${kind} "${backfill}": key "${path}" is not a column of the source's entity.`,
            );
          }
          return column;
        });
  if (columns.length === 0) {
    throw new InvariantError(
      `${kind} "${backfill}": the source's entity has no primary key to page on.`,
    );
  }
  return columns;
}

/** A key value as a cursor stores it: JSON, and still the same value once PostgreSQL casts the parameter back. */
function cursorValue(
  kind: string,
  backfill: string,
  path: string,
  value: unknown,
): string | number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  if (value === undefined) {
    // a source narrowed with .select() hydrates only what it selects: the cursor needs the key among it
    throw new InvariantError(
      `${kind} "${backfill}": key "${path}" is not among the columns the source selects, so a page has no cursor.`,
      `Select the key too: .addSelect('<alias>.${path}').`,
    );
  }
  throw new InvariantError(
    `${kind} "${backfill}": key "${path}" of a row is ${value === null ? 'null' : typeof value}, which no keyset can page on.`,
    'Page on a unique, non-null key (the primary key, by default).',
  );
}

/** Whether a column holds timestamps: its rows hydrate as `Date`s, which the cursor stores as ISO text. */
function holdsTimestamps(column: KeysetColumnLike): boolean {
  const { type } = column;
  return type === Date || (typeof type === 'string' && /^(timestamp|datetime)/i.test(type));
}

/**
 * A stored cursor value as the page binds it. A timestamp's goes back to the `Date` it was taken from, so the driver
 * writes it as it writes every `Date` — mirroring how it read the column: a `timestamp without time zone` is read as
 * the process's local time, and the ISO text (UTC) would be compared as a wall clock hours off, skipping rows (west of
 * UTC) or reading the cursor row again (east of it).
 */
function boundValue(column: KeysetColumnLike, stored: string | number): unknown {
  if (typeof stored !== 'string' || !holdsTimestamps(column)) return stored;
  const at = new Date(stored);
  return !Number.isNaN(at.getTime()) && at.toISOString() === stored ? at : stored;
}

/** Whether a row's key value is the cursor's value at the same position (as {@link cursorValue} would store it). */
function sameKeyValue(value: unknown, stored: string | number): boolean {
  if (value instanceof Date)
    return !Number.isNaN(value.getTime()) && value.toISOString() === stored;
  if (typeof value === 'bigint') return value.toString() === stored;
  return value === stored;
}

/**
 * Refuses a page that read back the row its cursor was taken from: the key did not survive the trip through
 * JavaScript — a timestamp stored to the microsecond, which a `Date` holds to the millisecond, so `key > cursor`
 * matches the last row again. Paging on would handle rows twice, or read the same page for ever.
 */
function refuseRereadCursor(
  kind: string,
  backfill: string,
  columns: readonly KeysetColumnLike[],
  after: KeysetCursor,
  rows: readonly unknown[],
): void {
  const reread = rows.some((row) =>
    columns.every((c, i) =>
      sameKeyValue(c.getEntityValue(row as object), after[i] as string | number),
    ),
  );
  if (!reread) return;
  throw new InvariantError(
    `${kind} "${backfill}": the page after cursor ${JSON.stringify(after)} read that row again: its key ` +
      `(${columns.map((c) => c.propertyPath).join(', ')}) holds more than the cursor can (a timestamp to the ` +
      'microsecond, which a JavaScript Date holds to the millisecond), so the keyset would never move past it.',
    'Page on a key JavaScript holds exactly: the primary key, or a timestamp(3) column (key: ["createdAt", "id"] needs createdAt at millisecond precision).',
  );
}

/**
 * Reads the page after `after` (null: the first page): at most `limit` rows of the source, ordered by the key, with
 * the key strictly past the cursor — one statement, never OFFSET, so page 500 costs what page 1 does. The source's own
 * conditions are bracketed before the keyset's is added, so an `a OR b` source stays one predicate. `kind` names what
 * reads (`'backfill'`, `'export'`) in the messages of its errors.
 */
export async function readKeysetPage<T>(
  backfill: string,
  source: unknown,
  key: readonly string[] | undefined,
  after: KeysetCursor | null,
  limit: number,
  kind = 'backfill',
): Promise<KeysetPage<T>> {
  const qb = queryOf<T>(backfill, source, kind);
  const columns = keyColumns(kind, backfill, qb as SelectQueryLike<unknown>, key);
  const alias = qb.alias;
  const paths = columns.map((c) => `${alias}.${c.propertyPath}`);
  if (after !== null) {
    if (after.length !== columns.length) {
      throw new InvariantError(
        `${kind} "${backfill}": the stored cursor has ${after.length} value(s) and the key ${columns.length}.`,
        'The key changed under a pass in flight: let it finish or cancel it before changing the key.',
      );
    }
    const existing = qb.expressionMap.wheres;
    if (existing.length > 0) {
      qb.expressionMap.wheres = [
        { type: 'simple', condition: { operator: 'brackets', condition: existing } },
      ];
    }
    const params: Record<string, unknown> = {};
    after.forEach((value, i) => (params[`${PARAM}_${i}`] = boundValue(columns[i]!, value)));
    const names = after.map((_, i) => `:${PARAM}_${i}`);
    qb.andWhere(
      paths.length === 1
        ? `${paths[0]} > ${names[0]}`
        : `(${paths.join(', ')}) > (${names.join(', ')})`,
      params,
    );
  }
  qb.orderBy();
  for (const path of paths) qb.addOrderBy(path, 'ASC');
  // a source's own paging would skip rows the keyset never sees again
  qb.skip(undefined);
  qb.offset(undefined);
  qb.limit(undefined);
  qb.take(limit);
  const rows = await qb.getMany();
  if (after !== null) refuseRereadCursor(kind, backfill, columns, after, rows);
  const last = rows[rows.length - 1];
  const cursor =
    last === undefined
      ? null
      : columns.map((c) =>
          cursorValue(kind, backfill, c.propertyPath, c.getEntityValue(last as object)),
        );
  return { rows, cursor };
}
