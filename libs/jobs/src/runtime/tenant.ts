import { JobsError } from '../errors/jobs-error';
import { JobTenantRequiredError } from '../errors/declaration-errors';
import { boundedText } from '../values/text';
import { currentRun, withRunScope, type RunScope } from './run-context';

/** A tenant-scoped read or write, an enqueue or an event publish named an org other than the run's. */
export class JobTenantMismatchError extends JobsError {
  /**
   * @param runOrg the run's tenant (null: `tenant: 'none'`)
   * @param asked the tenant the code asked for (null: none)
   * @param act what the code did, for the message (default "asked for")
   */
  constructor(runOrg: string | null, asked: string | null, act = 'asked for') {
    super(
      'X_JOB_TENANT_MISMATCH',
      `This run acts under ${orgText(runOrg)}, and the code ${act} ${orgText(asked)}.`,
      {
        fix: 'Read, write, enqueue and publish only for the run’s own tenant, or wrap a deliberate crossing in crossTenant(reason, fn).',
        meta: { runOrg, asked },
      },
    );
  }
}

const orgText = (org: string | null): string => (org === null ? 'no tenant' : `org ${org}`);

/**
 * The tenant the current code acts under: the run's declared org (null for `tenant: 'none'`), or `undefined` outside a
 * job body (a request, a script), where the app's own request context decides.
 */
export function currentTenant(): string | null | undefined {
  const run = currentRun();
  return run === undefined ? undefined : run.ctx.actor.orgId;
}

/** The crossings already logged per `crossTenant` scope: a scope that reads one org's rows 10,000 times logs once. */
const logged = new WeakMap<RunScope, Set<string>>();

/** Logs `jobs.tenant.crossed` for a crossing inside `crossTenant()`: the reason, from, to, and what crossed. */
function recordCrossing(
  run: RunScope,
  to: string | null,
  what: Readonly<Record<string, unknown>>,
  once: boolean,
): void {
  if (once) {
    const seen = logged.get(run) ?? new Set<string>();
    logged.set(run, seen);
    if (seen.has(String(to))) return;
    seen.add(String(to));
  }
  run.logger?.log('info', 'jobs.tenant.crossed', {
    reason: run.crossTenant,
    from: run.ctx.actor.orgId,
    to,
    ...what,
    by: run.ctx.name,
    jobId: run.ctx.jobId,
    runId: run.ctx.runId,
  });
}

/**
 * The check an app's data layer calls before a tenant-scoped read or write of `orgId`'s rows. Inside a run it refuses
 * another org (`X_JOB_TENANT_MISMATCH`) and any org from a `tenant: 'none'` run (`X_JOB_TENANT_REQUIRED`), unless the
 * code is inside `crossTenant()` — then the crossing is logged `jobs.tenant.crossed`, once per scope and org. Outside a
 * run it allows everything: the request's own guard applies there.
 */
export function assertTenant(orgId: string): void {
  const run = currentRun();
  if (run === undefined) return;
  const org = run.ctx.actor.orgId;
  if (org === orgId) return;
  if (run.crossTenant !== undefined) return recordCrossing(run, orgId, { act: 'access' }, true);
  if (org === null) {
    throw new JobTenantRequiredError(
      run.ctx.name,
      `runs under tenant 'none' and read org ${orgId}; wrap a deliberate cross-tenant read in crossTenant(reason, fn)`,
    );
  }
  throw new JobTenantMismatchError(org, orgId);
}

/**
 * The check every enqueue runs (`prepareEnqueue`) for a job whose declared tenant is `tenant`. Inside a run, a job of
 * an org other than the run's — or of any org from a `tenant: 'none'` run — would run with that org's authority, so it
 * is `X_JOB_TENANT_MISMATCH` unless inside `crossTenant(reason, …)`: then the crossing is logged `jobs.tenant.crossed`
 * and the reason answered, for the row to record (free text: bounded like an error message). A job of no tenant carries no authority, and outside a run the
 * request's own guard applies: neither is checked. Answers null when nothing crossed.
 */
export function enqueueTenant(job: string, tenant: string | null): string | null {
  const run = currentRun();
  if (run === undefined || tenant === null || run.ctx.actor.orgId === tenant) return null;
  if (run.crossTenant === undefined) {
    throw new JobTenantMismatchError(run.ctx.actor.orgId, tenant, `enqueued job "${job}" for`);
  }
  recordCrossing(run, tenant, { job }, false);
  return boundedText(run.crossTenant);
}

/**
 * The tenant an event is published under (`publishEvent`). Inside a run it defaults to the run's own (null for
 * `tenant: 'none'`), and another — an org, or null from a tenant's run — is `X_JOB_TENANT_MISMATCH` unless inside
 * `crossTenant(reason, …)`, where the crossing is logged `jobs.tenant.crossed`. Outside a run it is `asked`, or null
 * (no tenant) when the caller names none: the request's own guard decides there.
 */
export function eventTenant(event: string, asked: string | null | undefined): string | null {
  const run = currentRun();
  if (run === undefined) return asked ?? null;
  const org = run.ctx.actor.orgId;
  if (asked === undefined || asked === org) return org;
  if (run.crossTenant === undefined) {
    throw new JobTenantMismatchError(org, asked, `published event "${event}" for`);
  }
  recordCrossing(run, asked, { event }, false);
  return asked;
}

/**
 * Runs `fn` with tenant checks lifted, for a job body that genuinely spans tenants. The reason is required: every
 * crossing inside is logged `jobs.tenant.crossed` with it, and a row enqueued for another tenant stores it
 * (`crossTenantReason`). Outside a run there is no tenant to cross from, and `fn` runs as it is.
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
      logger: run.logger,
    },
    fn,
  );
}
