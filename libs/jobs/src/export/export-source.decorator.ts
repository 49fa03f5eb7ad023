import type { BackfillSource } from '../backfill/keyset-source';
import type { AnyJobHandle } from '../declare/handle';
import type { JobRunArgs, RunArgs } from '../declare/run-args';
import { InvariantError } from '../errors/runtime-errors';
import { Job } from '../nest/decorators/job.decorator';
import type { ExportSourceArgs } from './export-definition';
import { exportPass } from './export-pass';
import { unboundExportOf } from './export-rows';

/** The input an export handle's body receives. */
type ExportOutputOf<H> = JobRunArgs<H>['input'];

/** A provider method that can be an export's source: it answers the rows to read for one page. */
export type ExportSourceMethod<H> = (
  args: ExportSourceArgs<ExportOutputOf<H>>,
) => BackfillSource<unknown>;

/**
 * Binds a Nest provider method as the `source` of an export declared without one, so the read goes through the
 * provider's injected `DataSource` or repository. The method runs with its provider as `this`, once per page; the
 * rest of the export (pages, parts, checkpoints, manifest) is `exportRows()`'s. Discovered as `@Job` methods are:
 * one method per export, a request-scoped provider skipped with a warning, an export nobody binds `X_JOB_UNBOUND`.
 *
 * @example
 * ```ts
 * export const ordersExport = exportRows({ name: 'orders.export', input, tenant, prefix, format: 'csv', columns,
 *   row, sink });
 *
 * @Injectable()
 * class OrdersExportSource {
 *   constructor(private readonly data: DataSource) {}
 *   @ExportSource(ordersExport)
 *   orders({ input }: ExportSourceArgs<{ orgId: string }>) {
 *     return this.data.getRepository(Order).createQueryBuilder('o').where('o.orgId = :org', { org: input.orgId });
 *   }
 * }
 * ```
 */
export function ExportSource<H extends AnyJobHandle>(
  handle: H,
): <M extends ExportSourceMethod<H>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void {
  return (target, key, descriptor) => {
    const resolved = unboundExportOf(handle);
    const source: unknown = descriptor.value;
    if (resolved === undefined || typeof source !== 'function') {
      throw new InvariantError(
        `@ExportSource() on ${target.constructor.name}.${String(key)} was given ${resolved === undefined ? 'a handle that is not an export declared without a source' : 'no method'}.`,
        'Pass the handle exportRows() returned for a declaration that omits source.',
      );
    }
    // the bound body: the export's own pass, reading through this provider's method
    const body = function exportBody(this: object, args: RunArgs<never>): Promise<unknown> {
      return exportPass(
        { ...resolved, source: (a) => (source as (a: unknown) => unknown).call(this, a) },
        args,
      );
    };
    const bound = { value: body } as TypedPropertyDescriptor<(args: never) => unknown>;
    Job(handle as never)(target, key, bound as never);
    descriptor.value = body as unknown as typeof descriptor.value;
  };
}
