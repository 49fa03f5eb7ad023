import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { exampleDatabase, exampleJobsWhere } from '@ultimat3/example-jobs';
import type { AddressInfo } from 'node:net';
import { WorkerModule } from './app.module';

/** The port of `/health/live`, `/health/ready` and `/metrics` when `HEALTH_PORT` is unset. */
const DEFAULT_HEALTH_PORT = 9464;

/** How long a boot that failed once the roles ran waits for their close: the 25 s shutdown deadline, then the pools. */
const FAILED_BOOT_CLOSE_MS = 30_000;

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
  // before anything opens or migrates: a bad HEALTH_PORT fails the boot with nothing to undo
  const port = healthPort(process.env['HEALTH_PORT']);
  const database = await exampleDatabase({ log: (message) => logger.log(message) });
  process.env['DATABASE_URL'] = database.url;
  const app = await NestFactory.create(WorkerModule, { abortOnError: false });
  // the standard call: JobsModule holds the process until the signal, and exits 0 once the drain is done
  app.enableShutdownHooks();
  try {
    await app.listen(port);
  } catch (error) {
    // listen() bootstrapped first: the roles run — drain them (a claimed run handed back now, not at its lease's end)
    await closeWithin(app, FAILED_BOOT_CLOSE_MS);
    throw error;
  }
  const address = app.getHttpServer().address() as AddressInfo;
  logger.log(
    `worker started: roles worker, scheduler, relay (jobs on ${exampleJobsWhere()}; PostgreSQL: ${database.source}); ` +
      `/health/live, /health/ready and /metrics on port ${address.port}`,
  );
}

/**
 * Closes `app` (its shutdown hooks: the roles' drain, then the driver and the pool), waiting `ms` at most; never
 * rejects. The bound's timer is ref'd: a close stuck on unref'd timers must not let the process end with exit code 0.
 */
async function closeWithin(app: { close(): Promise<void> }, ms: number): Promise<void> {
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([
    app.close().catch(() => undefined),
    new Promise<void>((resolve) => {
      bound = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(bound);
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
