import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import type { JobRegistry } from '../../registry/job-registry';
import type { JobsLogger } from '../../util/logger';
import { backfillBindingOf, unboundBackfillClasses } from './backfill.decorator';

/**
 * Binds a discovered `@Backfill` provider: registers its job with the module's registry and makes the instance the one
 * its pass calls. Answers the unbinding, or undefined when the provider is not a `@Backfill` class. A request-scoped
 * or transient provider cannot serve a pass (there is no request): it is skipped with `jobs.explorer.non-static-skipped`.
 */
export function bindBackfillProvider(
  wrapper: InstanceWrapper,
  registry: JobRegistry,
  logger: JobsLogger,
): (() => void) | undefined {
  const binding = backfillBindingOf(wrapper.metatype);
  if (binding === undefined) return undefined;
  if (!wrapper.isDependencyTreeStatic()) {
    logger.log('warn', 'jobs.explorer.non-static-skipped', {
      binder: binding.binder,
      job: binding.handle.name,
      reason: 'a request-scoped or transient provider cannot serve a backfill; make it a singleton',
    });
    return undefined;
  }
  const instance: unknown = wrapper.instance;
  if (typeof instance !== 'object' || instance === null) return undefined;
  registry.register(binding.handle);
  return binding.bind(instance);
}

/**
 * Reports, once at boot, every `@Backfill` class declared in this process that no provider instance serves
 * (`jobs.backfill.unbound`): a class decorated and never listed in a module's providers would otherwise fail only
 * when its pass runs (`X_JOB_UNBOUND`), which for a sweep nobody enqueued is never.
 */
export function reportUnboundBackfills(logger: JobsLogger): void {
  for (const binding of unboundBackfillClasses()) {
    logger.log('warn', 'jobs.backfill.unbound', {
      backfill: binding.handle.name,
      binder: binding.binder,
      fix: `Provide ${binding.binder} as a singleton in a module of the app.`,
    });
  }
}
