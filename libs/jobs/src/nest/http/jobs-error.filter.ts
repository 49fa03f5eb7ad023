import { Catch, Logger, Optional, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { JobsError } from '../../errors/jobs-error';
import { formatLogLine } from '../../util/log-format';
import { JobsRuntime } from '../jobs.runtime';
import { jobsErrorBody, type JobsErrorBody } from './jobs-error.body';
import { jobsErrorHttpStatus } from './jobs-error.status';

/** A response a filter built without the adapter can still answer: Express's `status().json()`, Fastify's `code().send()`. */
interface ReplyLike {
  status?(code: number): { json(body: unknown): unknown };
  code?(code: number): { send(body: unknown): unknown };
}

/**
 * Answers a `JobsError` thrown by an HTTP handler with the status its code maps to (see `JOBS_ERROR_HTTP_STATUS`:
 * invalid input 400 with the issue paths, duplicate 409, driver unavailable 503, …) and a {@link JobsErrorBody},
 * instead of Nest's 500. A 5xx is logged as `jobs.http.failed` (through the module's logger, in its format); its body
 * carries the code, never the server's message.
 *
 * Register it for the whole app with `JobsModule.forRoot({ httpErrors: true, … })`, or per controller or route with
 * `@UseFilters(JobsErrorFilter)`. It replies through Nest's `HttpAdapterHost`, so it works on Express and Fastify
 * alike. Outside HTTP (microservices, GraphQL, WebSockets) it rethrows the error unchanged, which is what Nest's own
 * handler for those contexts does with an error no filter answers.
 */
@Catch(JobsError)
export class JobsErrorFilter implements ExceptionFilter<JobsError> {
  constructor(
    @Optional() private readonly adapterHost?: HttpAdapterHost,
    @Optional() private readonly runtime?: JobsRuntime,
  ) {}

  /** Replies to an HTTP request with the error's status and body; rethrows outside HTTP. */
  catch(error: JobsError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const status = jobsErrorHttpStatus(error.code);
    const http = host.switchToHttp();
    if (status >= 500) {
      const { method, url } = http.getRequest<{ method?: string; url?: string }>();
      this.logFailure({ status, method, path: url, error });
    }
    this.reply(http.getResponse<unknown>(), jobsErrorBody(error, status), status);
  }

  private logFailure(fields: Readonly<Record<string, unknown>>): void {
    const logger = this.runtime?.config.logger;
    if (logger !== undefined) logger.log('error', 'jobs.http.failed', fields);
    else new Logger('Jobs').error(formatLogLine('jobs.http.failed', fields));
  }

  private reply(response: unknown, body: JobsErrorBody, status: number): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (adapter !== undefined && adapter !== null) {
      adapter.reply(response, body, status);
      return;
    }
    // built with `new JobsErrorFilter()`: no adapter was injected, so answer through the response's own API
    const res = response as ReplyLike;
    if (typeof res.status === 'function') res.status(status).json(body);
    else if (typeof res.code === 'function') res.code(status).send(body);
    else throw new TypeError('JobsErrorFilter: the response is neither Express- nor Fastify-like.');
  }
}
