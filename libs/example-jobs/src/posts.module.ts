import { Module } from '@nestjs/common';
import { JobsModule } from '@ultimat3/jobs';
import { PostsJobs } from './posts.handler';
import * as postsJobs from './posts.jobs';
import { SubscribersService } from './subscribers.service';

/** Registers `notifySubscribers` and binds its body; imported by the web app and the worker alike. */
@Module({
  imports: [JobsModule.forFeature({ jobs: [postsJobs] })],
  providers: [SubscribersService, PostsJobs],
  exports: [SubscribersService],
})
export class PostsJobsModule {}
