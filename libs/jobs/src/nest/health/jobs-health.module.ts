import { Module, type DynamicModule } from '@nestjs/common';
import { jobsHealthController } from './jobs-health.controller';
import { JobsHealthIndicator } from './jobs-health.indicator';
import { resolveJobsHealthOptions, type JobsHealthOptions } from './jobs-health.options';
import {
  JOBS_HEALTH_CHECK_SERVICE,
  JOBS_HEALTH_INDICATOR_SERVICE,
  JOBS_HEALTH_OPTIONS,
} from './jobs-health.tokens';
import { loadTerminus } from './terminus.peer';

/**
 * Health through `@nestjs/terminus` (an optional peer, loaded by `forRoot()` only): provides and exports
 * {@link JobsHealthIndicator}, and with `path` mounts `GET <path>/live` and `GET <path>/ready`. Import it beside
 * `JobsModule.forRoot()`; without it nothing of Terminus is loaded.
 */
@Module({})
export class JobsHealthModule {
  /** Registers the indicator (and the controller, with `path`). Bad bounds are `X_INVARIANT` here. */
  static forRoot(options: JobsHealthOptions = {}): DynamicModule {
    const resolved = resolveJobsHealthOptions(options);
    const terminus = loadTerminus();
    return {
      module: JobsHealthModule,
      imports: [terminus.TerminusModule],
      controllers: options.path === undefined ? [] : [jobsHealthController(options.path)],
      providers: [
        { provide: JOBS_HEALTH_OPTIONS, useValue: resolved },
        { provide: JOBS_HEALTH_INDICATOR_SERVICE, useExisting: terminus.HealthIndicatorService },
        { provide: JOBS_HEALTH_CHECK_SERVICE, useExisting: terminus.HealthCheckService },
        JobsHealthIndicator,
      ],
      exports: [JobsHealthIndicator],
    };
  }
}
