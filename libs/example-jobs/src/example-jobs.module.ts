import { Module } from '@nestjs/common';
import { FleetModule } from './fleet.module';
import { OnboardingModule } from './onboarding.module';
import { PostsJobsModule } from './posts.module';

/** Every job and task of the example, with their services: what the web app and the worker both import. */
@Module({
  imports: [OnboardingModule, FleetModule, PostsJobsModule],
  exports: [OnboardingModule, FleetModule, PostsJobsModule],
})
export class ExampleJobsModule {}
