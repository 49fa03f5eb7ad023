import { Pool } from 'pg';
import type { JobDriver, LeaseStore, SchedulerState } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresBackendOver } from '@ultimat3/jobs-pg';
import { redisJobDriver } from '@ultimat3/jobs-redis';
import type { ChaosTarget } from '../../harness/drivers';

/** What a scheduler needs of a run's storage: the driver, its lease store (the election) and the durable state. */
export interface SchedulerBackend {
  readonly driver: JobDriver;
  readonly leases: LeaseStore;
  readonly state: SchedulerState;
  /** What the server is busy with (PostgreSQL: its non-idle sessions), for the message of a run that did not settle. */
  activity(): Promise<string>;
  close(): Promise<void>;
}

const ACTIVITY = `select pid, state, wait_event_type, wait_event, extract(epoch from now() - xact_start)::int as xact_s,
  left(regexp_replace(query, '\\s+', ' ', 'g'), 60) as query
from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`;

/**
 * Opens the scheduler's storage on `target` exactly as a deployment does, with NO clock: the lease's expiry and every
 * stamp are decided by the server's clock (PostgreSQL `now()`, Redis `TIME`), the one clock all processes share —
 * only the occurrences are decided on the process's own (driven, possibly skewed) clock.
 */
export function openSchedulerBackend(target: ChaosTarget): SchedulerBackend {
  if (target.driver === 'pg') {
    const pool = new Pool({ connectionString: target.url, max: 4 });
    // a connection reset by the proxy or a killed peer must not crash the process
    pool.on('error', () => undefined);
    const executor = pgPoolExecutor(pool);
    const backend = postgresBackendOver(
      executor,
      target.schema === undefined ? {} : { schema: target.schema },
    );
    return {
      driver: backend.driver,
      leases: backend.driver.leases,
      state: backend.schedulerState,
      activity: async () => JSON.stringify((await executor.query(ACTIVITY, [])).rows),
      close: () => pool.end(),
    };
  }
  const driver = redisJobDriver({ url: target.url, prefix: target.prefix ?? 'chaos' });
  return {
    driver,
    leases: driver.leases,
    state: driver.schedulerState,
    activity: () => Promise.resolve(''),
    close: () => driver.close(),
  };
}
