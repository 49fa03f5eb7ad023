import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ExampleJobsModule } from '@ultimat3/example-jobs';
import { JobsModule } from '@ultimat3/jobs';
import { JobsController } from './jobs.controller';
import { JobsErrorFilter } from './jobs-error.filter';
import { OnboardingController } from './onboarding.controller';
import { TasksController } from './tasks.controller';

/**
 * The example HTTP app: the web role only. It enqueues onto PostgreSQL (`DATABASE_URL`, which `main.ts` points at the
 * embedded server when it is unset); `apps/worker`, another process on the same database, runs the jobs and fires
 * the tasks.
 */
@Module({
  imports: [JobsModule.forRoot({ driver: 'postgres', roles: ['web'] }), ExampleJobsModule],
  controllers: [OnboardingController, JobsController, TasksController],
  providers: [{ provide: APP_FILTER, useClass: JobsErrorFilter }],
})
export class AppModule {}
