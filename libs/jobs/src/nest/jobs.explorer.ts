import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import type { AnyJobHandle } from '../declare/handle';
import type { RunArgs } from '../declare/run-args';
import { JobRegistry } from '../registry/job-registry';
import { bindBackfillProvider, reportUnboundBackfills } from './decorators/backfill.binding';
import type { TaskMethodBinding } from './decorators/task.decorator';
import { JobsFeature } from './jobs.feature';
import { JobsMetadataAccessor } from './jobs-metadata.accessor';
import { JOBS_MODULE_OPTIONS } from './jobs.module-definition';
import type { JobsModuleOptions } from './jobs.options';
import { JobsRuntime } from './jobs.runtime';
import {
  findSchedulerRegistry,
  jobsTimers,
  listJobsTimers,
} from './schedule/schedule-registry.listing';
import { registerRetention } from './retention/jobs-retention';
import { jobsRolesSource, noticeTasksWithoutScheduler } from './schedule/task-role.notice';
import { TaskRegistry } from './task.registry';

/**
 * Fills the registries in `onModuleInit`: every job and task a `JobsModule.forFeature()` registered, then every `@Job`
 * and `@Task` method, bound with its provider as `this`. Request-scoped providers are warned about and skipped, as
 * `@nestjs/schedule` does: a job or a tick runs with no request to scope them to. Tasks declared in a process without
 * the `scheduler` role are reported once (`jobs.scheduler.no-role`); the module's own retention sweep
 * (`forRoot({ retention })`) is registered after them and is never in that notice. When the app imports `@nestjs/schedule`'s
 * `ScheduleModule`, the module's own timers are listed in its `SchedulerRegistry`. At shutdown — after the scheduler
 * stopped — the `@Task` bindings are released and the listing removed.
 */
@Injectable()
export class JobsExplorer implements OnModuleInit, OnApplicationShutdown {
  readonly #unbinds: (() => void)[] = [];
  #unlist: (() => void) | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: JobsMetadataAccessor,
    private readonly registry: JobRegistry,
    private readonly tasks: TaskRegistry,
    private readonly runtime: JobsRuntime,
    @Inject(JOBS_MODULE_OPTIONS) private readonly options: JobsModuleOptions,
  ) {}

  onModuleInit(): void {
    const providers = this.discovery.getProviders();
    for (const wrapper of providers) {
      if (wrapper.instance instanceof JobsFeature) {
        wrapper.instance.handles.forEach((handle) => this.registry.register(handle));
        wrapper.instance.tasks.forEach((task) => this.tasks.register(task));
      }
    }
    const { config } = this.runtime;
    for (const wrapper of providers) {
      this.bindMethods(wrapper);
      const unbind = bindBackfillProvider(wrapper, this.registry, config.logger);
      if (unbind !== undefined) this.#unbinds.push(unbind);
    }
    reportUnboundBackfills(config.logger);
    const declared = this.tasks.all();
    // the module's own sweep: registered in every process, so it is in no notice about the app's tasks
    registerRetention(
      this.options.retention,
      config.driver,
      config.clock,
      { jobs: this.registry, tasks: this.tasks },
      (policy) => this.runtime.purgeTargets(policy),
    );
    const tasks = this.tasks.all();
    noticeTasksWithoutScheduler({
      tasks: declared.map((task) => task.name),
      roles: config.roles,
      source: jobsRolesSource(this.options),
      logger: config.logger,
    });
    // With ScheduleModule imported, the module's own timers are listed beside the app's @Cron/@Interval ones.
    const registry = findSchedulerRegistry(providers);
    if (registry !== undefined) {
      this.#unlist = listJobsTimers(registry, jobsTimers(config, tasks.length), config.logger);
    }
  }

  onApplicationShutdown(): void {
    this.#unlist?.();
    this.#unlist = undefined;
    this.#unbinds.splice(0).forEach((unbind) => unbind());
  }

  private bindMethods(wrapper: InstanceWrapper): void {
    const instance: unknown = wrapper.instance;
    if (typeof instance !== 'object' || instance === null) return;
    const prototype: unknown = Object.getPrototypeOf(instance);
    if (typeof prototype !== 'object' || prototype === null) return;
    const methods = instance as Record<string, unknown>;
    for (const method of this.scanner.getAllMethodNames(prototype)) {
      const handle = this.accessor.getJobHandle(methods[method]);
      const task = this.accessor.getTaskBinding(methods[method]);
      if (handle === undefined && task === undefined) continue;
      const binder = `${wrapper.metatype?.name ?? String(wrapper.name)}.${method}`;
      if (!wrapper.isDependencyTreeStatic()) {
        this.warnSkipped(binder, handle, task);
        continue;
      }
      if (handle !== undefined) {
        this.registry.bind(
          handle,
          // the method's answer as it is: the attempt waits only for a promise, and a throw is the body's failure
          (args: RunArgs<unknown>) =>
            (methods[method] as (a: RunArgs<unknown>) => unknown).call(instance, args),
          binder,
        );
      }
      if (task !== undefined) {
        this.tasks.register(task.handle);
        this.#unbinds.push(task.bind(instance));
      }
    }
  }

  private warnSkipped(
    binder: string,
    handle: AnyJobHandle | undefined,
    task: TaskMethodBinding | undefined,
  ): void {
    this.runtime.config.logger.log('warn', 'jobs.explorer.non-static-skipped', {
      binder,
      ...(handle === undefined ? {} : { job: handle.name }),
      ...(task === undefined ? {} : { task: task.handle.name }),
      reason:
        'a request-scoped or transient provider cannot serve jobs or tasks; make it a singleton',
    });
  }
}
