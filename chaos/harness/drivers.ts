/**
 * The driver matrix of the chaos tier: every scenario runs once per driver in {@link chaosDrivers}, each run on
 * storage of its own on the servers the jest global setup started — a fresh schema of the spec file's database on
 * PostgreSQL (`JOBS_TEST_DATABASE_URL`), a fresh key prefix on Redis (`JOBS_TEST_REDIS_URL`). A run's
 * {@link ChaosTarget} is plain JSON: the spec hands it to its child processes, which open the same driver with
 * {@link openChaosDriver}.
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { Cluster } from 'ioredis';
import type { Clock, JobDriver } from '@ultimat3/jobs';
import { migrate, pgPoolExecutor, postgresJobDriver, type PgExecutor } from '@ultimat3/jobs-pg';
import { redisJobDriver } from '@ultimat3/jobs-redis';
import { pgJobsSpec, type SpecDatabase } from '../../libs/jobs-pg/test/pg-jobs-spec';
import { deleteRedisKeys, testRedisUrl } from '../../libs/jobs-redis/test/test-redis';

/** A driver the chaos tier runs its scenarios on. */
export type ChaosDriverName = 'pg' | 'redis';

/** Every driver a scenario runs on, in order: `describe.each(chaosDrivers)` or a loop of `it`s. */
export const chaosDrivers: readonly ChaosDriverName[] = ['pg', 'redis'];

/** Where one scenario run's jobs live. Plain JSON: handed to child processes as it is. */
export interface ChaosTarget {
  readonly driver: ChaosDriverName;
  /** PostgreSQL: the database URL; Redis: the server URL. */
  readonly url: string;
  /** PostgreSQL: the run's own schema, migrated. */
  readonly schema?: string;
  /** Redis: the run's own deployment name (the keys' hash tag). */
  readonly prefix?: string;
  /** Redis: `url` is a seed node of a Redis Cluster (opened as an ioredis Cluster). */
  readonly cluster?: boolean;
}

/**
 * Registers the spec file's database on the test server (`pgJobsSpec`: not migrated, 10 connections): it holds the
 * ground-truth table (whatever the driver) and one schema per PostgreSQL run. Dropped in `afterAll`, after
 * `beforeDrop` (kept when `JOBS_TEST_KEEP_DB` is set, to inspect a red run). Call it at the top of the spec file.
 */
export function chaosDatabaseSpec(beforeDrop?: () => Promise<void>): SpecDatabase {
  return pgJobsSpec({ migrate: false, poolSize: 10, ...(beforeDrop ? { beforeDrop } : {}) });
}

/** A run's storage and the spec's own driver over it. */
export interface ChaosRun {
  readonly target: ChaosTarget;
  /** The spec's driver (enqueues, reads the final state); child processes open their own. */
  readonly driver: JobDriver;
  /** A label unique to this run (`pg-3f2a…`): the ground truth's run key. */
  readonly id: string;
  /** Closes the spec's driver and deletes the run's storage (the schema, the keys). */
  drop(): Promise<void>;
}

/** Fresh storage for one run of a scenario on `driver`: a migrated schema of `db`, or a fresh Redis prefix. */
export async function createChaosRun(driver: ChaosDriverName, db: SpecDatabase): Promise<ChaosRun> {
  const id = `${driver}_${randomBytes(5).toString('hex')}`;
  if (driver === 'pg') {
    const schema = `chaos_${id}`;
    await migrate(db.executor, { schema });
    const target: ChaosTarget = { driver, url: db.url, schema };
    const opened = openChaosDriver(target);
    return {
      target,
      driver: opened.driver,
      id,
      async drop() {
        await opened.close();
        if (!process.env.JOBS_TEST_KEEP_DB) await db.pool.query(`drop schema ${schema} cascade`);
      },
    };
  }
  const target: ChaosTarget = { driver, url: testRedisUrl(), prefix: `chaos-${id}` };
  const opened = openChaosDriver(target);
  return {
    target,
    driver: opened.driver,
    id,
    async drop() {
      await opened.close();
      await deleteRedisKeys(target.url, `{${target.prefix}}*`);
    },
  };
}

/** A driver over a run's storage and how to release it. */
export interface OpenedChaosDriver {
  readonly driver: JobDriver;
  /** PostgreSQL: the pool's executor (what a worker's wake probes and flushes through). */
  readonly executor?: PgExecutor;
  /** Closes the driver and its connections. */
  close(): Promise<void>;
}

/** Options of {@link openChaosDriver}. */
export interface OpenChaosDriverOptions {
  readonly clock?: Clock;
  /** PostgreSQL pool size (default 10). */
  readonly poolSize?: number;
}

/** Opens the driver `target` names (in the spec or in a child process). */
export function openChaosDriver(
  target: ChaosTarget,
  options: OpenChaosDriverOptions = {},
): OpenedChaosDriver {
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  if (target.driver === 'pg') {
    const pool = new Pool({ connectionString: target.url, max: options.poolSize ?? 10 });
    // an idle client's error (a server restart, a killed peer) must not crash the process
    pool.on('error', () => undefined);
    const driver = postgresJobDriver({
      executor: pgPoolExecutor(pool),
      ...(target.schema === undefined ? {} : { schema: target.schema }),
      ...clock,
    });
    return {
      driver,
      executor: pgPoolExecutor(pool),
      async close() {
        await driver.close();
        await pool.end();
      },
    };
  }
  if (target.cluster === true) {
    const { hostname, port } = new URL(target.url);
    const client = new Cluster([{ host: hostname, port: Number(port) }]);
    client.on('error', () => undefined);
    const driver = redisJobDriver({ client, prefix: target.prefix ?? 'chaos', ...clock });
    return {
      driver,
      async close() {
        await driver.close();
        client.disconnect();
      },
    };
  }
  const driver = redisJobDriver({ url: target.url, prefix: target.prefix ?? 'chaos', ...clock });
  return { driver, close: () => driver.close() };
}
