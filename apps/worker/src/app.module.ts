import { Module } from '@nestjs/common';
import { ExampleJobsModule } from '@ultimat3/example-jobs';
import { JobsModule } from '@ultimat3/jobs';
import { KeepAlive } from './keep-alive';

/**
 * The worker process: the same job modules as the web app, with the worker and scheduler roles, on PostgreSQL
 * (`DATABASE_URL`, which `main.ts` points at the embedded server when it is unset). Any number of these can run: the
 * claims skip each other's rows, and one scheduler leads through a lease row.
 */
@Module({
  imports: [
    JobsModule.forRoot({ driver: 'postgres', roles: ['worker', 'scheduler'] }),
    ExampleJobsModule,
  ],
  providers: [KeepAlive],
})
export class WorkerModule {}
