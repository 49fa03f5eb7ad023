/**
 * A worker PROCESS booted the way the Nest docs boot one, with nothing of its own to keep it alive and nothing to catch
 * a failed boot: `NestFactory.createApplicationContext` + `enableShutdownHooks()`, `JobsModule` with the worker and
 * scheduler roles on the memory driver (on PostgreSQL when `DATABASE_URL` is set). Prints `READY <pid>` once
 * bootstrapped and `RAN <n>` for each job it runs; enqueues one job a second from a task, so a test sees it working,
 * not merely alive.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { job, JobsModule, t, task } from '@ultimat3/jobs';

const tick = job({
  name: 'standard-worker.tick',
  input: t.object({ at: t.number.int() }),
  idempotencyKey: ({ at }) => `tick:${at}`,
  tenant: 'none',
  run: ({ input }) => void process.stdout.write(`RAN ${input.at}\n`),
});

const everySecond = task({
  cron: '* * * * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [[tick, { at: occurrenceMs }]],
});

@Module({
  imports: [
    JobsModule.forRoot({
      driver: process.env['DATABASE_URL'] ? 'postgres' : 'memory',
      postgres: { connectTimeoutMs: 2_000 },
      roles: ['worker', 'scheduler'],
      worker: { pollIntervalMs: 20, idlePollMaxMs: 200 },
    }),
    JobsModule.forFeature({ jobs: [{ tick }], tasks: [{ everySecond }] }),
  ],
})
class StandardWorkerModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(StandardWorkerModule, {
    logger: ['error', 'warn'],
  });
  app.enableShutdownHooks();
  process.stdout.write(`READY ${process.pid}\n`);
}

void main();
