import { Module } from '@nestjs/common';
import { JobsModule } from '@ultimat3/jobs';
import { MailService } from './mail.service';
import { OnboardingJobs } from './onboarding.handler';
import * as onboardingJobs from './onboarding.jobs';
import { OrgsService } from './orgs.service';

/** Registers the onboarding job and binds its body; imported by the web app and the worker alike. */
@Module({
  imports: [JobsModule.forFeature({ jobs: [onboardingJobs] })],
  providers: [OrgsService, MailService, OnboardingJobs],
  exports: [OrgsService, MailService],
})
export class OnboardingModule {}
