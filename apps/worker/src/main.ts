import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { exampleDatabase, exampleJobsWhere } from '@ultimat3/example-jobs';
import type { AddressInfo } from 'node:net';
import { WorkerModule } from './app.module';

/** The port of `/health/live`, `/health/ready` and `/metrics` when `HEALTH_PORT` is unset. */
const DEFAULT_HEALTH_PORT = 9464;

/**
 * Starts the worker, the scheduler and the outbox relay on `DATABASE_URL` — or, when it is unset, on the embedded
 * PostgreSQL under `.data/pg` (started here, or reused when the example app already runs it). `JOBS_DRIVER=redis` puts
 * the jobs on `REDIS_URL` instead; the outbox stays in PostgreSQL. SIGTERM / SIGINT: Nest's
 * shutdown hooks stop the scheduler after its round, stop the relay (joining its pass in flight), stop claiming, hand
 * held runs back uncounted, wait for them, close the driver and then the DataSource's pool, then exit 0.
 * Its only HTTP is for the platform: `/health/live`, `/health/ready` and `/metrics` on `HEALTH_PORT`.
 */
async function bootstrap(): Promise<void> {
  const logger = new Logger('Worker');
  const database = await exampleDatabase({ log: (message) => logger.log(message) });
  process.env['DATABASE_URL'] = database.url;
  const app = await NestFactory.create(WorkerModule, { abortOnError: false });
  // the standard call: JobsModule holds the process until the signal, and exits 0 once the drain is done
  app.enableShutdownHooks();
  await app.listen(healthPort(process.env['HEALTH_PORT']));
  const address = app.getHttpServer().address() as AddressInfo;
  logger.log(
    `worker started: roles worker, scheduler, relay (jobs on ${exampleJobsWhere()}; PostgreSQL: ${database.source}); ` +
      `/health/live, /health/ready and /metrics on port ${address.port}`,
  );
}

/** `HEALTH_PORT`: the probes' and the scrape's port (default 9464; 0 picks a free one). */
function healthPort(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_HEALTH_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`HEALTH_PORT must be a port number from 0 to 65535 (got "${value}").`);
  return port;
}

bootstrap().catch((error: unknown) => {
  new Logger('Worker').error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
