/**
 * A worker PROCESS booted the way the Nest docs boot one, with nothing of its own to keep it alive:
 * `NestFactory.createApplicationContext` + `enableShutdownHooks()`, `JobsModule` on the memory driver with the worker
 * and scheduler roles. Prints `READY <pid>` once bootstrapped and `RAN <n>` for each job it runs; enqueues one job a
 * second from a task, so a test sees it working, not merely alive.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { job, JobsModule, t, task } from '@ultimat3/jobs';

const tick = job({
  name: 'memory-worker.tick',
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
      driver: 'memory',
      roles: ['worker', 'scheduler'],
      worker: { pollIntervalMs: 20, idlePollMaxMs: 200 },
    }),
    JobsModule.forFeature({ jobs: [{ tick }], tasks: [{ everySecond }] }),
  ],
})
class MemoryWorkerModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(MemoryWorkerModule, {
    logger: ['error', 'warn'],
  });
  app.enableShutdownHooks();
  process.stdout.write(`READY ${process.pid}\n`);
}

void main();
