import { ConfigurableModuleBuilder } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { JobsErrorFilter } from './http/jobs-error.filter';
import type { JobsModuleOptions } from './jobs.options';
import { metricsControllers, metricsProviders } from './metrics/jobs-metrics.module-parts';
import type { JobsMetricsOptions } from './metrics/jobs-metrics.options';

/** What `forRoot` / `forRootAsync` take beside the options, decided when the module is declared. */
export interface JobsModuleExtras {
  /**
   * Register `JobsErrorFilter` for the whole app (`APP_FILTER`): a `JobsError` thrown by an HTTP handler is answered
   * with the status its code maps to (400 with the issue paths, 409, 503, …) instead of a 500 (default false).
   */
  readonly httpErrors?: boolean;
  /**
   * Keep the jobs series in prom-client (an optional peer, loaded only then) and serve them at `metrics.path`
   * (default `'/metrics'`; `false` serves none, for an app that already serves its registry). See
   * {@link JobsMetricsOptions}. Default: no metrics.
   */
  readonly metrics?: JobsMetricsOptions;
}

/**
 * `forRoot` / `forRootAsync` (`useFactory | useClass | useExisting`) for `JobsModule`. The module is always global: one
 * registry, one driver and one facade per application.
 */
const definition = new ConfigurableModuleBuilder<JobsModuleOptions>({ moduleName: 'Jobs' })
  .setClassMethodName('forRoot')
  .setExtras<JobsModuleExtras>({ httpErrors: false }, (module, extras) => ({
    ...module,
    global: true,
    // only when asked: an app with its own error handling keeps it
    providers: [
      ...(module.providers ?? []),
      ...(extras.httpErrors ? [{ provide: APP_FILTER, useClass: JobsErrorFilter }] : []),
      ...(extras.metrics === undefined ? [] : metricsProviders(extras.metrics)),
    ],
    controllers: [
      ...(module.controllers ?? []),
      ...(extras.metrics === undefined ? [] : metricsControllers(extras.metrics)),
    ],
  }))
  .build();

/** The class `JobsModule` extends: its `forRoot` / `forRootAsync` (global, with the extras above). */
export const JobsConfigurableModuleClass = definition.ConfigurableModuleClass;

/**
 * The injection token of the resolved {@link JobsModuleOptions}: `@Inject(JOBS_MODULE_OPTIONS)` reads what `forRoot`
 * was given, or what `forRootAsync`'s factory answered.
 */
export const JOBS_MODULE_OPTIONS = definition.MODULE_OPTIONS_TOKEN;

/** A value of the type `JobsModule.forRoot()` takes (the options and the extras): use it as `typeof JOBS_OPTIONS_TYPE`. */
export const JOBS_OPTIONS_TYPE = definition.OPTIONS_TYPE;

/** A value of the type `JobsModule.forRootAsync()` takes: use it as `typeof JOBS_ASYNC_OPTIONS_TYPE`. */
export const JOBS_ASYNC_OPTIONS_TYPE = definition.ASYNC_OPTIONS_TYPE;

/** What `JobsModule.forRootAsync()` takes. */
export type JobsModuleAsyncOptions = typeof JOBS_ASYNC_OPTIONS_TYPE;
