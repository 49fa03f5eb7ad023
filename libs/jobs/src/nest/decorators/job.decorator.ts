import { SetMetadata } from '@nestjs/common';
import type { AnyJobHandle } from '../../declare/handle';
import { isJobHandle } from '../../declare/job';
import type { JobRunArgs } from '../../declare/run-args';
import { InvariantError } from '../../errors/runtime-errors';
import { JOB_METADATA } from '../jobs.constants';

/** A method that can serve the job `H`: it takes the run's args and may answer the job's result. */
export type JobMethod<H> = (args: JobRunArgs<H>) => unknown;

/**
 * Binds a provider method as the body of `handle`, a declaration without an inline `run`. The method runs with its
 * provider as `this`, so injected services are at hand. Each declaration is bound by exactly one method; a
 * request-scoped provider cannot serve jobs (there is no request) and is skipped with a warning.
 *
 * @example
 * ```ts
 * @Job(onboardOrg)
 * async onboard({ input, step }: JobRunArgs<typeof onboardOrg>) { … }
 * ```
 */
export function Job<H extends AnyJobHandle>(
  handle: H,
): <M extends JobMethod<H>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void {
  const decorate = SetMetadata(JOB_METADATA, handle);
  return (target, key, descriptor) => {
    if (!isJobHandle(handle)) {
      const where = `${target.constructor.name}.${String(key)}`;
      throw new InvariantError(
        `@Job() on ${where} was given something that is not a job handle.`,
        'Pass the handle job() returned: @Job(onboardOrg).',
      );
    }
    decorate(target, key, descriptor);
  };
}
