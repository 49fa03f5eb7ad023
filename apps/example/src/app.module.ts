import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ExampleJobsModule } from '@ultimat3/example-jobs';
import { JobsModule } from '@ultimat3/jobs';
import { JobsController } from './jobs.controller';
import { JobsErrorFilter } from './jobs-error.filter';
import { OnboardingController } from './onboarding.controller';
import { TasksController } from './tasks.controller';

/** The example HTTP app. */
@Module({
  imports: [
    // The memory driver lives in this process only, so this process is the web, the worker and the scheduler.
    JobsModule.forRoot({ driver: 'memory', roles: ['web', 'worker', 'scheduler'] }),
    ExampleJobsModule,
  ],
  controllers: [OnboardingController, JobsController, TasksController],
  providers: [{ provide: APP_FILTER, useClass: JobsErrorFilter }],
})
export class AppModule {}
