import type { JobsLogger } from '../../util/logger';
import type { JobsRole } from '../jobs.options';

/** Where a process's roles came from: `forRoot({ roles })`, the `JOBS_ROLES` variable, or neither (the default). */
export type JobsRolesSource = 'roles' | 'JOBS_ROLES' | 'default';

/** Where `resolveJobsSettings` read the roles from, by the same precedence. */
export function jobsRolesSource(
  options: { readonly roles?: unknown },
  env: NodeJS.ProcessEnv = process.env,
): JobsRolesSource {
  if (options.roles !== undefined) return 'roles';
  return env['JOBS_ROLES'] ? 'JOBS_ROLES' : 'default';
}

/** What {@link noticeTasksWithoutScheduler} reads. */
export interface TaskRoleNotice {
  /** The names of the tasks this process declares. */
  readonly tasks: readonly string[];
  readonly roles: ReadonlySet<JobsRole>;
  readonly source: JobsRolesSource;
  readonly logger: JobsLogger;
}

/**
 * Says once, at boot, that this process declares tasks it will never fire because it lacks the `scheduler` role —
 * `jobs.scheduler.no-role`, with the fix. A `warn` when the roles are the DEFAULT (`web, worker`): nobody chose them,
 * and a single-process app whose `@Task` never fires is the mistake this catches. An `info` when the roles were chosen
 * (`roles` or `JOBS_ROLES`): a web or worker process sharing its declarations with a scheduler process elsewhere in the
 * fleet is the normal shape of a deploy, and a warning on every such pod would be noise. Answers whether it logged.
 */
export function noticeTasksWithoutScheduler(notice: TaskRoleNotice): boolean {
  const { tasks, roles, source, logger } = notice;
  if (tasks.length === 0 || roles.has('scheduler')) return false;
  const withScheduler = [...roles, 'scheduler'];
  const fields = {
    tasks: [...tasks],
    roles: [...roles],
    rolesFrom: source,
    fix:
      `Give the process that should fire them the scheduler role: JobsModule.forRoot({ roles: ` +
      `[${withScheduler.map((r) => `'${r}'`).join(', ')}] }) or JOBS_ROLES=${withScheduler.join(',')}. ` +
      'Any number of processes may hold it: one leader fires each occurrence.',
  };
  if (source === 'default') {
    logger.log('warn', 'jobs.scheduler.no-role', {
      ...fields,
      reason:
        'this process runs the default roles, and no process fires a task without the scheduler role',
    });
  } else {
    logger.log('info', 'jobs.scheduler.no-role', {
      ...fields,
      reason: `the tasks fire only where the scheduler role runs; ${source} leaves it out of this process`,
    });
  }
  return true;
}
