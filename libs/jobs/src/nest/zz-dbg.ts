import { job } from '../declare/job';
import type { JobRunArgs } from '../declare/run-args';
import { t } from '../schema';
import { Job, type JobMethod } from './decorators/job.decorator';

const h = job({ name: 'dbg', input: t.object({ orgId: t.uuid }), idempotencyKey: () => 'x', tenant: 'none' });
type A = JobRunArgs<typeof h>;
const a: A = null as unknown as A;
export const check: JobMethod<typeof h> = (args: JobRunArgs<typeof h>): Promise<void> => Promise.resolve(void args);
export class X {
  @Job(h)
  async m(_args: JobRunArgs<typeof h>): Promise<void> {}
}
export { a };
