import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { defaultBackfillEnvironment } from '../../backfill/backfill-runtime';
import { backfillsHealth } from '../../backfill/health-check';
import { backfillOf } from '../../backfill/registry';
import { describeBackfill } from '../../backfill/resolved';
import { JobRegistry } from '../../registry/job-registry';
import { JobsRuntime } from '../jobs.runtime';
import { queueStatsCacheOf } from '../metrics/queue-stats.cache';
import { outboxHostLookup } from '../outbox/outbox-host.lookup';
import { SchedulerHost } from '../scheduler.host';
import { TaskRegistry } from '../task.registry';
import { WorkerHost } from '../worker.host';
import type { ResolvedJobsHealthOptions } from './jobs-health.options';
import {
  probeLive,
  probeReady,
  type JobsHealthSources,
  type JobsProbeReport,
} from './jobs-health.probes';
import { JOBS_HEALTH_INDICATOR_SERVICE, JOBS_HEALTH_OPTIONS } from './jobs-health.tokens';
import type { HealthIndicatorServiceLike, JobsHealthResult } from './terminus.peer';

/**
 * The jobs runtime of this process as a Terminus indicator (`JobsHealthModule.forRoot()` provides it), usable in any
 * `HealthCheckService.check([...])`:
 *
 * - `isLive(key)` — only what a restart cures: the worker's claim loop has passed lately (or every slot is busy).
 * - `isReady(key)` — the driver answers one cheap statement within `pingTimeoutMs` (a database outage is not ready,
 *   never dead); each long-running role this process holds runs (the worker's wake proven, else `degraded` while it
 *   polls; the scheduler's leadership known; the relay running); the outbox's oldest staged row is younger than
 *   `outbox.maxLagMs`; every declared queue threshold holds.
 *
 * Down, the details carry `failing` — the names of the checks that failed (`driver`, `worker`, `queue:payments`, …) —
 * beside each check's own record.
 */
@Injectable()
export class JobsHealthIndicator {
  readonly #sources: JobsHealthSources;

  constructor(
    @Inject(JOBS_HEALTH_INDICATOR_SERVICE) private readonly health: HealthIndicatorServiceLike,
    @Inject(JOBS_HEALTH_OPTIONS) private readonly options: ResolvedJobsHealthOptions,
    runtime: JobsRuntime,
    worker: WorkerHost,
    scheduler: SchedulerHost,
    jobs: JobRegistry,
    tasks: TaskRegistry,
    moduleRef: ModuleRef,
  ) {
    const { driver, clock, roles } = runtime.config;
    const outbox = outboxHostLookup(moduleRef);
    this.#sources = {
      driver,
      clock,
      roles,
      wakes: runtime.config.startWake !== undefined,
      stats: queueStatsCacheOf(driver, clock),
      worker: () => worker.stats(),
      scheduler: () => scheduler.scheduler,
      relay: () => outbox()?.relay,
      outboxBacklog: () => outbox()?.backlog(),
      serves: (role) => (role === 'worker' ? jobs.all().length > 0 : tasks.all().length > 0),
      backfills: () =>
        backfillsHealth(
          runtime.config.backend.backfills,
          jobs.all().flatMap(({ handle }) => {
            const declared = backfillOf(handle);
            return declared === undefined ? [] : [describeBackfill(declared)];
          }),
          defaultBackfillEnvironment(),
        ),
    };
  }

  /** Liveness under `key` (default `'jobs'`). */
  isLive(key = 'jobs'): Promise<JobsHealthResult> {
    return Promise.resolve(this.#answer(key, probeLive(this.#sources, this.options)));
  }

  /** Readiness under `key` (default `'jobs'`). */
  async isReady(key = 'jobs'): Promise<JobsHealthResult> {
    return this.#answer(key, await probeReady(this.#sources, this.options));
  }

  #answer(key: string, report: JobsProbeReport): JobsHealthResult {
    const session = this.health.check(key);
    if (report.failing.length > 0)
      return session.down({ failing: report.failing, ...report.checks });
    const degraded = Object.values(report.checks).some((check) => check.status === 'degraded');
    return degraded ? session.degraded({ ...report.checks }) : session.up({ ...report.checks });
  }
}
