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
  readonly clock?: FrozenClock;
  readonly events?: EventBus;
  /** Install the facade so `handle.enqueue()` reaches this worker's driver (default true). */
  readonly installFacade?: boolean;
}

/** A worker on a frozen clock: a test advances three days without sleeping. */
export interface JobsHarness {
  readonly clock: FrozenClock;
  readonly driver: JobDriver;
  readonly worker: JobWorker;
  readonly registry: JobRegistry;
  readonly logger: RecordingLogger;
  readonly metrics: MemoryJobMetrics;
  readonly events: EventBus;
  /** Moves the clock forward, running every timer (polls, heartbeats, deadlines, wakes) that falls due. */
  advance(ms: number): Promise<void>;
  /** Lets work due now run without moving the clock. */
  settle(): Promise<void>;
  /** Stops the worker (waiting for in-flight runs), removes the facade and closes the driver. */
  close(): Promise<void>;
}

/** Starts a worker on a frozen clock over the memory driver (or the driver given), with the facade installed. */
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
  await worker.start();
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
