import { Controller, Get, Inject, type Type } from '@nestjs/common';
import { JobsHealthIndicator } from './jobs-health.indicator';
import { JOBS_HEALTH_CHECK_SERVICE } from './jobs-health.tokens';
import type { HealthCheckServiceLike } from './terminus.peer';

/**
 * A controller answering `GET <path>/live` and `GET <path>/ready` through Terminus' `HealthCheckService`: 200 with
 * its JSON while up (or degraded), 503 with the same JSON — `error.jobs.failing` naming the checks — while down.
 * A class per path: Nest reads a controller's path from its class.
 */
export function jobsHealthController(path: string): Type<unknown> {
  @Controller(path)
  class JobsHealthController {
    constructor(
      @Inject(JOBS_HEALTH_CHECK_SERVICE) private readonly health: HealthCheckServiceLike,
      @Inject(JobsHealthIndicator) private readonly jobs: JobsHealthIndicator,
    ) {}

    @Get('live')
    live(): Promise<unknown> {
      return this.health.check([() => this.jobs.isLive()]);
    }

    @Get('ready')
    ready(): Promise<unknown> {
      return this.health.check([() => this.jobs.isReady()]);
    }
  }
  return JobsHealthController;
}
