/**
 * A jobs worker in a chaos child process: opens the run's driver ({@link ./drivers.openChaosDriver}) wrapped in the
 * {@link ./recording-driver.recordingDriver}, registers the scenario's jobs (whose bodies record into the same ground
 * truth), starts claiming and says `ready`. It answers `stats` (the worker's counters and the log events it saw, by
 * name) and drains on SIGTERM. A scenario's entry file is a few lines: `serveChaosWorker(config, register)`.
 */
import { Client, Pool } from 'pg';
import {
  JobRegistry,
  jobWorker,
  type ClaimedJob,
  type JobDriver,
  type JobsLogger,
} from '@ultimat3/jobs';
import { startWorkerWake } from '@ultimat3/jobs-pg';
import type { RedisJobDriver } from '@ultimat3/jobs-redis';
import { serveChaosChild } from './child';
import { openChaosDriver, type ChaosTarget, type OpenedChaosDriver } from './drivers';
import { truthWriter, type TruthWriter } from './ground-truth';
import { recordingDriver, type RecordedHandOffs } from './recording-driver';

/** The JSON config a spec hands a chaos worker process. */
export interface ChaosWorkerConfig {
  readonly target: ChaosTarget;
  /** The ground truth's database and the run's key in it. */
  readonly truthUrl: string;
  readonly run: string;
  /** The worker's name (its worker id is `<name>-<pid>` unless `workerId` is given). */
  readonly name: string;
  /**
   * A fixed worker id, e.g. the same for two processes (as a restarted process configured with a fixed id has its
   * predecessor's): their runs are then told apart by the claim token alone.
   */
  readonly workerId?: string;
  readonly concurrency?: number;
  readonly visibilityTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  readonly pollIntervalMs?: number;
  readonly idlePollMaxMs?: number;
  readonly claimAhead?: boolean;
  /**
   * Start a cross-process wake for this worker — Redis: the driver's sharded-channel subscription (the wake alone);
   * PostgreSQL: `startWorkerWake`, the LISTEN session with the hand-off (the worker registered while idle, rows claimed
   * for it inside other processes' enqueues), whose handed rows are recorded as the claims they are.
   */
  readonly wake?: boolean;
}

/** Registers the scenario's jobs; their bodies record into `truth`. */
export type RegisterChaosJobs = (registry: JobRegistry, truth: TruthWriter) => void;

/** Serves `config`'s worker with the jobs `register` declares, until SIGTERM. */
export async function serveChaosWorker(
  config: ChaosWorkerConfig,
  register: RegisterChaosJobs,
): Promise<void> {
  const truthPool = new Pool({ connectionString: config.truthUrl, max: 4 });
  truthPool.on('error', () => undefined);
  const truth = truthWriter({ pool: truthPool, run: config.run });
  const opened = openChaosDriver(config.target, { poolSize: 12 });
  const events = new Map<string, number>();
  const logger: JobsLogger = {
    log: (_level, event) => events.set(event, (events.get(event) ?? 0) + 1),
  };
  const registry = new JobRegistry();
  register(registry, truth);
  const recorded = recordingDriver(opened.driver, truth);
  const worker = jobWorker({
    driver: recorded,
    registry,
    logger,
    workerId: config.workerId ?? `${config.name}-${process.pid}`,
    ...pick(config),
  });
  await worker.start();
  const stopWake =
    config.wake === true
      ? await startChaosWake(config, opened, worker, recorded, logger)
      : undefined;
  serveChaosChild({
    ready: { workerId: worker.id },
    answer: (type) =>
      type === 'stats'
        ? { stats: worker.stats(), events: Object.fromEntries(events), cpu: process.cpuUsage() }
        : {},
    shutdown: async () => {
      worker.beginDrain('SIGTERM');
      await worker.stop();
      await stopWake?.();
      await truth.flush();
      await opened.close();
      await truthPool.end();
    },
  });
}

/**
 * Starts `worker`'s wake on the run's backend (see {@link ChaosWorkerConfig.wake}); on PostgreSQL the rows handed to
 * it are recorded as claims before the worker takes them. Answers its stop.
 */
async function startChaosWake(
  config: ChaosWorkerConfig,
  opened: OpenedChaosDriver,
  worker: ReturnType<typeof jobWorker>,
  recorded: JobDriver & RecordedHandOffs,
  logger: JobsLogger,
): Promise<() => Promise<void>> {
  const handOff = {
    ...worker.handOff,
    takeClaimed(rows: readonly ClaimedJob[]) {
      void recorded.handed(rows);
      worker.handOff.takeClaimed(rows);
    },
  };
  const target = {
    signalEnqueued: (queue: string, sweepAfterMs?: number) =>
      worker.signalEnqueued(queue, sweepAfterMs),
    setWakeLive: (live: boolean) => worker.setWakeLive(live),
    handOff,
  };
  if (config.target.driver === 'redis')
    return (opened.driver as RedisJobDriver).wake.listen(target);
  const { url, schema } = config.target;
  const wake = startWorkerWake({
    listener: () => new Client({ connectionString: url }),
    executor: opened.executor!,
    target,
    driver: recorded,
    logger,
    ...(schema === undefined ? {} : { schema }),
  });
  await wake.ready();
  return () => wake.stop();
}

function pick(config: ChaosWorkerConfig): Record<string, number | boolean> {
  const out: Record<string, number | boolean> = {};
  for (const key of [
    'concurrency',
    'visibilityTimeoutMs',
    'heartbeatIntervalMs',
    'pollIntervalMs',
    'idlePollMaxMs',
    'claimAhead',
  ] as const) {
    const value = config[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
