import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { JobsModuleOptions } from './jobs.options';

/**
 * `forRoot` / `forRootAsync` (`useFactory | useClass | useExisting`) for `JobsModule`. The module is always global: one
 * registry, one driver and one facade per application.
 */
export const {
  ConfigurableModuleClass: JobsConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: JOBS_MODULE_OPTIONS,
  OPTIONS_TYPE: JOBS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: JOBS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<JobsModuleOptions>({ moduleName: 'Jobs' })
  .setClassMethodName('forRoot')
  .setExtras({}, (definition) => ({ ...definition, global: true }))
  .build();

/** What `JobsModule.forRootAsync()` takes. */
export type JobsModuleAsyncOptions = typeof JOBS_ASYNC_OPTIONS_TYPE;
