import type { ServerResponse } from 'node:http';
import {
  All,
  Body,
  Get,
  Header,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  Res,
  StreamableFile,
} from '@nestjs/common';
import type { CounterBucket } from '../driver/counters';
import type { WorkerInfo } from '../driver/workers';
import { AdminWriteRefusedError, type AdminWriteRefusal } from '../errors/admin-errors';
import { JobsRuntime } from '../nest/jobs.runtime';
import { JobRegistry } from '../registry/job-registry';
import { JobsService } from '../nest/jobs.service';
import type { BulkPreviewView, BulkView } from '../operator/bulk';
import type { OperatorDeclarations } from '../operator/declarations';
import type { JobPageView, JobSummaryView, JobView } from '../operator/job-views';
import { introspectionOf } from '../operator/operator-driver';
import type { QueuePauseView, QueueView, StatsView } from '../operator/queues';
import type { TaskPauseView, TaskView } from '../operator/tasks';
import { adminBackfills, type AdminBackfillsView } from './admin-backfills';
import { AdminCsrf } from './admin-csrf';
import { ADMIN_CSP, adminHtml, readAdminAsset } from './admin-page';
import {
  backfillFilter,
  bodyText,
  bulkRequest,
  counterJob,
  jobListFilter,
  sinceOf,
  type AdminQuery,
} from './admin-query';
import { JOBS_ADMIN_OPTIONS, type AdminRequest, type ResolvedAdminOptions } from './admin.options';

/** What `GET <path>/api/session` answers: what the page may show, and the token its writes send. */
export interface AdminSessionView {
  /** Whether the caller may use the page's writes (`canWrite(request)`'s answer). */
  readonly canWrite: boolean;
  /** Sent back in the `x-jobs-csrf` header of every write; null for a read-only caller. */
  readonly csrfToken: string | null;
  /** How often the page refreshes, in ms. */
  readonly pollMs: number;
  /** Whether the backend keeps a backfill ledger. */
  readonly backfills: boolean;
  /** The extension routes mounted at `<path>/ext/<name>`. */
  readonly routes: readonly string[];
}

/**
 * The admin page and its JSON API. `JobsAdminModule.forRoot()` mounts a subclass at the configured path, behind the
 * app's guard; every read is one call of the operator projection (`JobsService`), every write goes through
 * {@link JobsAdminApi.writable} first.
 */
export class JobsAdminApi {
  private readonly csrf: AdminCsrf;

  constructor(
    private readonly jobs: JobsService,
    private readonly runtime: JobsRuntime,
    private readonly registry: JobRegistry,
    @Inject(JOBS_ADMIN_OPTIONS) private readonly options: ResolvedAdminOptions,
  ) {
    this.csrf = new AdminCsrf(options);
  }

  /** `GET <path>`: the admin page's HTML. */
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', ADMIN_CSP)
  @Header('x-frame-options', 'DENY')
  @Header('cache-control', 'no-store')
  page(): string {
    return adminHtml(this.options.path);
  }

  /** `GET <path>/assets/:file`: one built asset of the page; 404 when it is not there. */
  @Get('assets/:file')
  async asset(@Param('file') file: string): Promise<StreamableFile> {
    const asset = await readAdminAsset(this.options.assetsDir, file);
    if (asset === null) {
      throw new NotFoundException(
        `admin asset ${file} not found in ${this.options.assetsDir}: run npm run build (scripts/build-admin-assets.mjs).`,
      );
    }
    return new StreamableFile(asset.body, { type: asset.type });
  }

  /** `GET <path>/api/session`: whether the caller may write, and the CSRF token its writes send. */
  @Get('api/session')
  @Header('cache-control', 'no-store')
  async session(@Req() request: AdminRequest): Promise<AdminSessionView> {
    const canWrite = await this.options.canWrite(request);
    return {
      canWrite,
      csrfToken: canWrite ? this.csrf.issue(request) : null,
      pollMs: this.options.pollMs,
      backfills: this.runtime.config.backend.backfills !== undefined,
      routes: [...this.options.routes.keys()],
    };
  }

  /** `GET <path>/api/queues`: every queue's counts. */
  @Get('api/queues')
  queues(): Promise<readonly QueueView[]> {
    return this.jobs.inspectQueues();
  }

  /** `GET <path>/api/stats`: queues, workers and per-job counter totals. */
  @Get('api/stats')
  stats(@Query() query: AdminQuery): Promise<StatsView> {
    return this.jobs.inspectStats(sinceOf(query));
  }

  /** `GET <path>/api/counters`: one job's counter buckets. */
  @Get('api/counters')
  counters(@Query() query: AdminQuery): Promise<readonly CounterBucket[]> {
    const since = sinceOf(query);
    return introspectionOf(this.jobs.driver, 'counters').counters({
      job: counterJob(query),
      ...(since === undefined ? {} : { sinceMs: since }),
    });
  }

  /** `GET <path>/api/jobs`: one page of job rows, by the query's filter. */
  @Get('api/jobs')
  list(@Query() query: AdminQuery): Promise<JobPageView> {
    return this.jobs.listJobs(jobListFilter(query));
  }

  /** `GET <path>/api/jobs/:id`: everything about one job. */
  @Get('api/jobs/:id')
  job(@Param('id') id: string): Promise<JobView> {
    return this.jobs.inspectJob(id);
  }

  /** `GET <path>/api/dead`: one page of dead-lettered rows. */
  @Get('api/dead')
  dead(@Query() query: AdminQuery): Promise<JobPageView> {
    const { state: _state, ...filter } = jobListFilter(query);
    return this.jobs.inspectDeadLetters(filter);
  }

  /** `GET <path>/api/workers`: every live worker. */
  @Get('api/workers')
  workers(): Promise<readonly WorkerInfo[]> {
    return this.jobs.inspectWorkers();
  }

  /** `GET <path>/api/tasks`: every task, with its pause flag, last fire and next run. */
  @Get('api/tasks')
  tasks(): Promise<readonly TaskView[]> {
    return this.jobs.inspectTasks();
  }

  /** `GET <path>/api/manifest`: the app's declared jobs and tasks. */
  @Get('api/manifest')
  manifest(): OperatorDeclarations {
    return this.jobs.inspectManifest();
  }

  /** `GET <path>/api/backfills`: the declared backfills against the ledger, and its passes. */
  @Get('api/backfills')
  async backfills(@Query() query: AdminQuery): Promise<AdminBackfillsView> {
    return adminBackfills(
      this.runtime.config.backend.backfills,
      this.registry,
      backfillFilter(query),
    );
  }

  /** `POST <path>/api/jobs/:id/retry` (a write): re-queues a finished job, from the body's `fromStep` if given. */
  @Post('api/jobs/:id/retry')
  @HttpCode(200)
  async retry(
    @Req() request: AdminRequest,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<JobSummaryView> {
    await this.writable(request);
    return this.jobs.retryFromStep(id, bodyText(body, 'fromStep'));
  }

  /** `POST <path>/api/jobs/:id/cancel` (a write): stops a live job, with the body's `reason`. */
  @Post('api/jobs/:id/cancel')
  @HttpCode(200)
  async cancel(
    @Req() request: AdminRequest,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<JobSummaryView> {
    await this.writable(request);
    return this.jobs.cancelJob(id, bodyText(body, 'reason'));
  }

  /** `POST <path>/api/bulk/preview` (checked as a write): what a bulk action would cover, changing nothing. */
  @Post('api/bulk/preview')
  @HttpCode(200)
  async bulkPreview(@Req() request: AdminRequest, @Body() body: unknown): Promise<BulkPreviewView> {
    await this.writable(request);
    const { action, filter } = bulkRequest(body);
    return this.jobs.previewBulk(action, filter);
  }

  /** `POST <path>/api/bulk` (a write): runs one bulk requeue, remove or promote. */
  @Post('api/bulk')
  @HttpCode(200)
  async bulk(@Req() request: AdminRequest, @Body() body: unknown): Promise<BulkView> {
    await this.writable(request);
    const { action, filter } = bulkRequest(body);
    return this.jobs.bulkJobs(action, filter);
  }

  /** `POST <path>/api/queues/:queue/pause` or `…/resume` (a write). */
  @Post('api/queues/:queue/:verb')
  @HttpCode(200)
  async queue(
    @Req() request: AdminRequest,
    @Param('queue') queue: string,
    @Param('verb') verb: string,
  ): Promise<QueuePauseView> {
    await this.writable(request);
    if (verb === 'pause') return this.jobs.pauseQueue(queue);
    if (verb === 'resume') return this.jobs.resumeQueue(queue);
    throw new NotFoundException(`no queue action "${verb}": pause or resume.`);
  }

  /** `POST <path>/api/tasks/:task/pause` or `…/resume` (a write). */
  @Post('api/tasks/:task/:verb')
  @HttpCode(200)
  async task(
    @Req() request: AdminRequest,
    @Param('task') task: string,
    @Param('verb') verb: string,
  ): Promise<TaskPauseView> {
    await this.writable(request);
    if (verb === 'pause') return this.jobs.pauseTask(task);
    if (verb === 'resume') return this.jobs.resumeTask(task);
    throw new NotFoundException(`no task action "${verb}": pause or resume.`);
  }

  /** `<path>/ext/:name`, any method: hands the request to the extension route of that name, same-origin only. */
  @All('ext/:name')
  async extension(
    @Req() request: AdminRequest,
    @Res() response: ServerResponse,
    @Param('name') name: string,
  ): Promise<void> {
    const route = this.options.routes.get(name);
    if (route === undefined) throw new NotFoundException(`no admin route "${name}".`);
    if (!this.csrf.sameOrigin(request)) this.refuse('origin');
    const canWrite = await this.options.canWrite(request);
    await route.handle({ request, response, jobs: this.jobs, canWrite });
  }

  /**
   * Refuses a write (403 `X_ADMIN_WRITE_REFUSED`) unless it comes from this app's own page (same origin), carries a
   * token issued to the caller's session, and `canWrite(request)` allows it.
   */
  private async writable(request: AdminRequest): Promise<void> {
    if (!this.csrf.sameOrigin(request)) this.refuse('origin');
    if (!this.csrf.verifyToken(request)) this.refuse('csrf-token');
    if (!(await this.options.canWrite(request))) this.refuse('read-only');
  }

  private refuse(reason: AdminWriteRefusal): never {
    throw new AdminWriteRefusedError(reason);
  }
}
