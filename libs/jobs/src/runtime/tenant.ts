import { JobsError } from '../errors/jobs-error';
import { JobTenantRequiredError } from '../errors/declaration-errors';
import { currentRun, withRunScope } from './run-context';

/** A tenant-scoped read or write named an org other than the run's. */
export class JobTenantMismatchError extends JobsError {
  constructor(runOrg: string | null, asked: string) {
    super(
      'X_JOB_TENANT_MISMATCH',
      `This run acts under ${runOrg === null ? 'no tenant' : `org ${runOrg}`}, and the code asked for org ${asked}.`,
      {
        fix: 'Read and write only the run’s own tenant, or wrap a deliberate cross-tenant read in crossTenant(reason, fn).',
        meta: { runOrg, asked },
      },
    );
  }
}

/**
 * The tenant the current code acts under: the run's declared org (null for `tenant: 'none'`), or `undefined` outside a
 * job body (a request, a script), where the app's own request context decides.
 */
export function currentTenant(): string | null | undefined {
  const run = currentRun();
  return run === undefined ? undefined : run.ctx.actor.orgId;
}

/**
 * The check an app's data layer calls before a tenant-scoped read or write of `orgId`'s rows. Inside a run it refuses
 * another org (`X_JOB_TENANT_MISMATCH`) and any org from a `tenant: 'none'` run (`X_JOB_TENANT_REQUIRED`), unless the
 * code is inside `crossTenant()`. Outside a run it allows everything: the request's own guard applies there.
 */
export function assertTenant(orgId: string): void {
  const run = currentRun();
  if (run === undefined || run.crossTenant !== undefined) return;
  const org = run.ctx.actor.orgId;
  if (org === null) {
    throw new JobTenantRequiredError(
      run.ctx.name,
      `runs under tenant 'none' and read org ${orgId}; wrap a deliberate cross-tenant read in crossTenant(reason, fn)`,
    );
  }
  if (org !== orgId) throw new JobTenantMismatchError(org, orgId);
}

/**
 * Runs `fn` with tenant checks lifted, for a job body that genuinely spans tenants. The reason is required: it is what
 * an audit reads.
 */
export function crossTenant<T>(reason: string, fn: () => T): T {
  if (typeof reason !== 'string' || reason.trim().length === 0) {
    throw new JobTenantRequiredError('crossTenant', 'was called without a reason');
  }
  const run = currentRun();
  if (run === undefined) return fn();
  // spelled out, not spread: a run's scope may keep its step API behind a getter
  return withRunScope(
    {
      ctx: run.ctx,
      get step() {
        return run.step;
      },
      crossTenant: reason,
    },
    fn,
  );
}
