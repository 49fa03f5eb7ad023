import { Module } from '@nestjs/common';
import { ExampleJobsModule } from '@ultimat3/example-jobs';
import { JobsModule } from '@ultimat3/jobs';
import { KeepAlive } from './keep-alive';

/** The worker process: the same job modules as the web app, with the worker and scheduler roles. */
@Module({
  imports: [
    JobsModule.forRoot({ driver: 'memory', roles: ['worker', 'scheduler'] }),
    ExampleJobsModule,
  ],
  providers: [KeepAlive],
})
export class WorkerModule {}
