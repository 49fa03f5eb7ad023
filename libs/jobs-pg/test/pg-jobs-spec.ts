import type { Pool } from 'pg';
import type { PgExecutor } from '../src/executor/pg-executor';
import { createTestDatabase, type TestDatabase, type TestDatabaseOptions } from './test-database';

/** Options of {@link pgJobsSpec}: those of `createTestDatabase`, and what to empty before each test. */
export interface PgJobsSpecOptions extends TestDatabaseOptions {
  /**
   * Tables emptied before each test, in this order, in one round trip (default: none). `JOB_TABLES` names the ones
   * the driver writes; a spec adds the others it fills.
   */
  readonly emptyBeforeEach?: readonly string[];
  /**
   * What the spec opened over the database (an app, a worker, a listener, child processes), closed in the `afterAll`
   * before the drop: the drop ends every connection still open, which would fail them mid-flight.
   */
  readonly beforeDrop?: () => Promise<void> | void;
}

/** The spec's own database, as `createTestDatabase` answers it, less `drop` (the registered `afterAll` drops it). */
export type SpecDatabase = Omit<TestDatabase, 'drop'>;

const TABLE = /^[a-z_][a-z0-9_]*$/;

/**
 * The set-up every PostgreSQL spec repeats, registered once: a fresh test database (migrated unless asked not to) in
 * `beforeAll`, the tables named in `emptyBeforeEach` emptied in `beforeEach`, then `beforeDrop` run, the pool ended
 * and the database dropped in `afterAll`. Call it at the top of a spec file or of a `describe`, before the hooks that
 * use the database; the answer reads it from `beforeAll` on (`db.executor`, `db.pool`, `db.url`, `db.name`), and
 * throws when read sooner.
 */
export function pgJobsSpec(options: PgJobsSpecOptions = {}): SpecDatabase {
  const empty = options.emptyBeforeEach ?? [];
  const wrong = empty.find((table) => !TABLE.test(table));
  if (wrong !== undefined) throw new Error(`pgJobsSpec: '${wrong}' is not a table name`);
  let db: TestDatabase | undefined;
  const ready = (): TestDatabase => {
    if (db === undefined) throw new Error('pgJobsSpec: the database is set in beforeAll');
    return db;
  };
  beforeAll(async () => {
    db = await createTestDatabase(options);
  });
  afterAll(async () => {
    try {
      await options.beforeDrop?.();
    } finally {
      await db?.drop();
    }
  });
  if (empty.length > 0) {
    const text = empty.map((table) => `delete from ${table};`).join(' ');
    beforeEach(async () => {
      await ready().executor.query(text, []);
    });
  }
  return {
    get name(): string {
      return ready().name;
    },
    get url(): string {
      return ready().url;
    },
    get pool(): Pool {
      return ready().pool;
    },
    get executor(): PgExecutor {
      return ready().executor;
    },
  };
}
