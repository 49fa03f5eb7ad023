import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { exampleDatabase, exampleJobsWhere } from '@ultimat3/example-jobs';
import { AppModule } from './app.module';

/**
 * Starts the example on PORT (default 3000), on `DATABASE_URL` — or, when it is unset, on the embedded PostgreSQL
 * under `.data/pg` (started here, or reused when the worker already runs it). Run `apps/worker` beside it: this
 * process only enqueues — directly (the onboarding), or staged in the outbox with a post (`POST /orgs/:orgId/posts`),
 * which the worker's relay publishes once the post committed. SIGTERM / SIGINT close the app through Nest's shutdown hooks, then exit 0.
 * Probes and scrape on the same port: `/health/live`, `/health/ready`, `/metrics`.
 */
async function bootstrap(): Promise<void> {
  const logger = new Logger('Example');
  const database = await exampleDatabase({ log: (message) => logger.log(message) });
  process.env['DATABASE_URL'] = database.url;
  const app = await NestFactory.create(AppModule, { abortOnError: false });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  const port = Number(process.env['PORT'] ?? 3000);
  await app.listen(port);
  logger.log(
    `listening on http://localhost:${port} (jobs on ${exampleJobsWhere()}; PostgreSQL: ${database.source})`,
  );
}

bootstrap().catch((error: unknown) => {
  new Logger('Example').error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
