import type { JobsHarness } from '../src/testing/run-jobs';
import { jobWorker } from '../src/worker/job-worker';
import type { JobWorker } from '../src/worker/worker-options';

/**
 * A second worker over a harness's driver, registry, clock, logger, metrics and event bus, named `workerId`: the
 * replacement a deploy starts beside a draining worker, or a worker a test drives by hand. Not started.
 */
export function harnessWorker(h: JobsHarness, workerId: string): JobWorker {
  return jobWorker({
    driver: h.driver,
    registry: h.registry,
    clock: h.clock,
    logger: h.logger,
    metrics: h.metrics,
    events: h.events,
    workerId,
  });
}
