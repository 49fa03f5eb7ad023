import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import type { RunArgs } from '../declare/run-args';
import { JobRegistry } from '../registry/job-registry';
import { JobsFeature } from './jobs.feature';
import { JobsMetadataAccessor } from './jobs-metadata.accessor';
import { JobsRuntime } from './jobs.runtime';

/**
 * Fills the registry in `onModuleInit`: every handle a `JobsModule.forFeature()` registered, then every `@Job` method,
 * bound with its provider as `this`. Request-scoped providers are warned about and skipped, as `@nestjs/schedule`
 * does: a job runs with no request to scope them to.
 */
@Injectable()
export class JobsExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: JobsMetadataAccessor,
    private readonly registry: JobRegistry,
    private readonly runtime: JobsRuntime,
  ) {}

  onModuleInit(): void {
    const providers = this.discovery.getProviders();
    for (const wrapper of providers) {
      if (wrapper.instance instanceof JobsFeature) {
        wrapper.instance.handles.forEach((handle) => this.registry.register(handle));
      }
    }
    for (const wrapper of providers) this.bindMethods(wrapper);
  }

  private bindMethods(wrapper: InstanceWrapper): void {
    const instance: unknown = wrapper.instance;
    if (typeof instance !== 'object' || instance === null) return;
    const prototype: unknown = Object.getPrototypeOf(instance);
    if (typeof prototype !== 'object' || prototype === null) return;
    const methods = instance as Record<string, unknown>;
    for (const method of this.scanner.getAllMethodNames(prototype)) {
      const handle = this.accessor.getJobHandle(methods[method]);
      if (handle === undefined) continue;
      const binder = `${wrapper.metatype?.name ?? String(wrapper.name)}.${method}`;
      if (!wrapper.isDependencyTreeStatic()) {
        this.runtime.config.logger.log('warn', 'jobs.explorer.non-static-skipped', {
          binder,
          job: handle.name,
          reason: 'a request-scoped or transient provider cannot serve jobs; make it a singleton',
        });
        continue;
      }
      this.registry.bind(
        handle,
        async (args: RunArgs<unknown>) =>
          (methods[method] as (a: RunArgs<unknown>) => unknown).call(instance, args),
        binder,
      );
    }
  }
}
