/**
 * The fleet of scenario 3's worker ({@link ./worker}) and a steady enqueuer of its job, as scenarios 3 and 8 start it
 * under their faults: each worker beats every 500 ms and polls every 100 ms, each step body takes {@link STEP_MS}.
 */
import { join } from 'node:path';
import type { JobDriver } from '@ultimat3/jobs';
import type { SpecDatabase } from '../../../libs/jobs-pg/test/pg-jobs-spec';
import type { ChaosTarget } from '../../harness/drivers';
import { startFaultedFleet, type FaultedFleet } from '../../harness/faulted-fleet';
import { faultJobRequests } from './db-faults-job';
import type { DbFaultsWorkerConfig } from './worker';

/** How long each step body of the fleet's jobs takes. */
export const STEP_MS = 25;

/** Options of {@link startDbFaultsFleet}. */
export interface DbFaultsFleetOptions {
  /** Where the workers reach the jobs (through a fault-injecting proxy, or a server that fails over). */
  readonly target: ChaosTarget;
  /** The spec's ground-truth database. */
  readonly truth: SpecDatabase;
  /** The ground truth's run key. */
  readonly run: string;
  /** The spec's own driver, straight to the server: it enqueues and reads the final state. */
  readonly driver: JobDriver;
  readonly workers: number;
  /** Each worker's concurrency. */
  readonly concurrency: number;
  /** Each worker's visibility timeout. */
  readonly leaseMs: number;
  /** How many jobs the enqueuer adds, 8 at a time. */
  readonly jobs: number;
  /** Ms between two of the enqueuer's batches. */
  readonly intervalMs: number;
  /** The ceiling of an idle worker's poll interval. */
  readonly idlePollMaxMs: number;
  /** Redis: each worker listens to the driver's cross-process wake. */
  readonly wake?: boolean;
}

/** Starts the workers (each ready), then the enqueuer. */
export function startDbFaultsFleet(options: DbFaultsFleetOptions): Promise<FaultedFleet> {
  const config = (name: string): DbFaultsWorkerConfig => ({
    target: options.target,
    truthUrl: options.truth.url,
    run: options.run,
    name,
    concurrency: options.concurrency,
    visibilityTimeoutMs: options.leaseMs,
    heartbeatIntervalMs: 500,
    pollIntervalMs: 100,
    idlePollMaxMs: options.idlePollMaxMs,
    ...(options.wake === undefined ? {} : { wake: options.wake }),
    stepMs: STEP_MS,
  });
  return startFaultedFleet({
    entry: join(__dirname, 'worker.ts'),
    config,
    workers: options.workers,
    truth: options.truth.pool,
    driver: options.driver,
    request: faultJobRequests(options.jobs),
    total: options.jobs,
    batch: 8,
    intervalMs: options.intervalMs,
  });
}
