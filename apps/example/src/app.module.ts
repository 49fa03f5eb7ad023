import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { OnboardingModule } from '@ultimat3/example-jobs';
import { JobsModule } from '@ultimat3/jobs';
import { JobsController } from './jobs.controller';
import { JobsErrorFilter } from './jobs-error.filter';
import { OnboardingController } from './onboarding.controller';

/** The example HTTP app. */
@Module({
  imports: [
    // The memory driver lives in this process only, so this process is both the web and the worker.
    JobsModule.forRoot({ driver: 'memory', roles: ['web', 'worker'] }),
    OnboardingModule,
  ],
  controllers: [OnboardingController, JobsController],
  providers: [{ provide: APP_FILTER, useClass: JobsErrorFilter }],
})
export class AppModule {}
