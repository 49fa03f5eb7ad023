import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { stampExportNames } from '../declare/job';
import { stampTaskExportNames } from '../declare/task';
import { JobRegistry } from '../registry/job-registry';
import { JobsExplorer } from './jobs.explorer';
import { loadJobsConfig } from './jobs.config';
import { JOBS_CONFIG } from './jobs.constants';
import { JobsFeature, type JobsFeatureOptions } from './jobs.feature';
import { JobsMetadataAccessor } from './jobs-metadata.accessor';
import { JobsConfigurableModuleClass, JOBS_MODULE_OPTIONS } from './jobs.module-definition';
import type { JobsModuleOptions } from './jobs.options';
import { JobsRuntime } from './jobs.runtime';
import { JobsService } from './jobs.service';
import { JobsLifecycle } from './lifecycle/jobs.lifecycle';
import { SchedulerHost } from './scheduler.host';
import { TaskRegistry } from './task.registry';
import { WorkerHost } from './worker.host';

/** The module `JobsModule.forFeature()` answers: it only carries one {@link JobsFeature}. */
@Module({})
export class JobsFeatureModule {}

let features = 0;

/**
 * Durable background jobs for a Nest application. `forRoot({ driver, roles, … })` (or `forRootAsync`) once, in the
 * root module; `forFeature({ jobs: [namespace], tasks: [namespace] })` wherever declarations live.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: JobRegistry, useFactory: () => new JobRegistry() },
    { provide: TaskRegistry, useFactory: () => new TaskRegistry() },
    {
      // async: Nest awaits it before any provider that needs it, so bootstrap ends on an open, migrated driver
      provide: JOBS_CONFIG,
      inject: [JOBS_MODULE_OPTIONS],
      useFactory: (options: JobsModuleOptions) => loadJobsConfig(options),
    },
    JobsRuntime,
    JobsMetadataAccessor,
    JobsExplorer,
    JobsService,
    SchedulerHost,
    WorkerHost,
    // the one provider with lifecycle hooks: it starts and stops the hosts above, in order
    JobsLifecycle,
  ],
  exports: [
    JobsService,
    JobRegistry,
    TaskRegistry,
    JobsRuntime,
    SchedulerHost,
    WorkerHost,
    JobsLifecycle,
  ],
})
export class JobsModule extends JobsConfigurableModuleClass {
  /**
   * Registers the job and task handles each module namespace exports. An unnamed handle takes its export name as its
   * durable name here, when the importing module is declared; a name another declaration holds is `X_JOB_DUPLICATE`
   * at this call. The same handle in several features is one registration.
   */
  static forFeature(options: JobsFeatureOptions): DynamicModule {
    const handles = (options.jobs ?? []).flatMap((namespace) => stampExportNames(namespace));
    const tasks = (options.tasks ?? []).flatMap((namespace) => stampTaskExportNames(namespace));
    features += 1;
    // A distinct token per call: Nest keys dynamic modules by their metadata, and two features must stay two.
    return {
      module: JobsFeatureModule,
      providers: [
        {
          provide: `@ultimat3/jobs:feature:${features}`,
          useValue: new JobsFeature(handles, tasks),
        },
      ],
    };
  }
}
