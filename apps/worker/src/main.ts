import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { exampleDatabase } from '@ultimat3/example-jobs';
import { WorkerModule } from './app.module';

/**
 * Starts the worker, the scheduler and the outbox relay on `DATABASE_URL` — or, when it is unset, on the embedded
 * PostgreSQL under `.data/pg` (started here, or reused when the example app already runs it). SIGTERM / SIGINT: Nest's
 * shutdown hooks stop the scheduler after its round, stop the relay (joining its pass in flight), stop claiming, hand
 * held runs back uncounted, wait for them, close the driver and then the DataSource's pool, then exit 0.
 */
async function bootstrap(): Promise<void> {
  const logger = new Logger('Worker');
  const database = await exampleDatabase({ log: (message) => logger.log(message) });
  process.env['DATABASE_URL'] = database.url;
  const app = await NestFactory.createApplicationContext(WorkerModule, { abortOnError: false });
  // the standard call: JobsModule holds the process until the signal, and exits 0 once the drain is done
  app.enableShutdownHooks();
  logger.log(`worker started: roles worker, scheduler, relay (PostgreSQL: ${database.source})`);
}

bootstrap().catch((error: unknown) => {
  new Logger('Worker').error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
