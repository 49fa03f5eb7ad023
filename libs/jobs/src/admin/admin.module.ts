import {
  Controller,
  Module,
  UseFilters,
  UseGuards,
  type DynamicModule,
  type Type,
} from '@nestjs/common';
import { JobsErrorFilter } from '../nest/http/jobs-error.filter';
import { resolveAdminOptions } from './admin-config';
import { JobsAdminApi } from './admin.controller';
import {
  JOBS_ADMIN_OPTIONS,
  type JobsAdminOptions,
  type ResolvedAdminOptions,
} from './admin.options';

/** A controller class mounting {@link JobsAdminApi} at the configured path, behind the app's guard. */
function adminController(options: ResolvedAdminOptions): Type<JobsAdminApi> {
  @Controller(options.path)
  @UseFilters(JobsErrorFilter)
  class JobsAdminController extends JobsAdminApi {}
  if (options.guard !== null) UseGuards(options.guard)(JobsAdminController);
  return JobsAdminController;
}

/**
 * The admin page and its JSON API, served by the app itself:
 *
 * ```ts
 * JobsAdminModule.forRoot({ path: '/_x/jobs', guard: OpsGuard, canWrite: (req) => isOperator(req) })
 * ```
 *
 * Import it beside `JobsModule.forRoot()` (it reads the `JobsService` that module exports). Without `guard` and
 * without `public: true` it throws `X_ADMIN_GUARD_REQUIRED` when the module is built, before anything is mounted.
 */
@Module({})
export class JobsAdminModule {
  /** The module mounted at `options.path` (default `/_x/jobs`). */
  static forRoot(options: JobsAdminOptions): DynamicModule {
    const resolved = resolveAdminOptions(options);
    return {
      module: JobsAdminModule,
      controllers: [adminController(resolved)],
      providers: [{ provide: JOBS_ADMIN_OPTIONS, useValue: resolved }],
    };
  }
}
