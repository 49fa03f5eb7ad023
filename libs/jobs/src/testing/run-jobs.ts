import { setJobsFacade } from '../declare/ambient';
import { directJobsFacade } from '../declare/direct-facade';
import type { AnyJobHandle } from '../declare/handle';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import type { EventBus } from '../events/event-bus';
import { memoryEventBus } from '../events/memory-event-bus';
import { JobRegistry } from '../registry/job-registry';
import { memoryJobMetrics, type MemoryJobMetrics } from '../runtime/metrics';
import { recordingLogger, type RecordingLogger } from '../util/logger';
import { jobWorker } from '../worker/job-worker';
import type { JobWorker, JobWorkerOptions } from '../worker/worker-options';
import { frozenClock, type FrozenClock } from './frozen-clock';

/** Options of {@link runJobs}. */
export interface RunJobsOptions extends Partial<
  Omit<JobWorkerOptions, 'registry' | 'clock' | 'logger' | 'metrics' | 'events'>
> {
  /** The jobs to register (their inline bodies run). */
  readonly jobs: readonly AnyJobHandle[];
  /** The registry to use instead (bodies bound elsewhere). */
  readonly registry?: JobRegistry;
  /** The clock to drive (default a fresh {@link frozenClock}). */
  readonly clock?: FrozenClock;
  /** The event bus (default a memory bus on the clock). */
  readonly events?: EventBus;
  /** Install the facade so `handle.enqueue()` reaches this worker's driver (default true). */
  readonly installFacade?: boolean;
}

/** A worker on a frozen clock: a test advances three days without sleeping. */
export interface JobsHarness {
  /** The clock the worker and the driver read. */
  readonly clock: FrozenClock;
  /** The driver the worker claims from: `get(id)` and `steps.load(id)` read a row and its steps. */
  readonly driver: JobDriver;
  /** The running worker. */
  readonly worker: JobWorker;
  /** The registry the worker serves. */
  readonly registry: JobRegistry;
  /** Every log event, for `named('jobs.attempt.failed')`. */
  readonly logger: RecordingLogger;
  /** The worker's counts, for `total(queue, outcome)`. */
  readonly metrics: MemoryJobMetrics;
  /** The event bus `publishEvent` and `step.waitForEvent` use. */
  readonly events: EventBus;
  /** Moves the clock forward, running every timer (polls, heartbeats, deadlines, wakes) that falls due. */
  advance(ms: number): Promise<void>;
  /** Lets work due now run without moving the clock. */
  settle(): Promise<void>;
  /** Stops the worker (waiting for in-flight runs), removes the facade and closes the driver. */
  close(): Promise<void>;
}

/**
 * Starts a worker on a frozen clock over the memory driver (or the driver given), with the facade installed. When the
 * worker refuses to start, it rejects with the worker's error and leaves no facade installed (and closes the memory
 * driver it opened; a driver the caller passed stays the caller's).
 */
export async function runJobs(options: RunJobsOptions): Promise<JobsHarness> {
  const clock = options.clock ?? frozenClock();
  const driver = options.driver ?? memoryJobDriver({ clock });
  const registry = options.registry ?? new JobRegistry();
  for (const handle of options.jobs) registry.register(handle);
  const logger = recordingLogger();
  const metrics = memoryJobMetrics();
  const events = options.events ?? memoryEventBus({ clock });
  const worker = jobWorker({ ...options, driver, registry, clock, logger, metrics, events });
  const uninstall =
    options.installFacade === false
      ? () => undefined
      : setJobsFacade(
          directJobsFacade({ driver, clock, events, onEnqueued: (q) => worker.signalEnqueued(q) }),
        );
  try {
    await worker.start();
  } catch (error) {
    // a worker that refuses to start (X_JOB_UNBOUND, a bad timing) leaves nothing behind: no facade routing a later
    // enqueue to a driver nobody serves, and no driver of its own left open
    uninstall();
    if (options.driver === undefined) await driver.close();
    throw error;
  }
  await clock.flush();
  return {
    clock,
    driver,
    worker,
    registry,
    logger,
    metrics,
    events,
    advance: (ms) => clock.advance(ms),
    settle: () => clock.flush(),
    async close() {
      const stopping = worker.stop();
      await clock.flush();
      await stopping;
      uninstall();
      await driver.close();
    },
  };
}
