import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PostSlugBackfill } from './post-slug.backfill';
import { Post } from './post.entity';

/**
 * The `posts` repository and the `posts.slug` backfill over it: imported by the web app (which publishes posts and
 * triggers the sweep) and the worker (which runs it). Needs the app's `TypeOrmModule.forRoot…` with {@link Post}
 * among its entities; `ExampleJobsModule` does not import it, so a job-only test needs no database.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Post])],
  providers: [PostSlugBackfill],
  exports: [TypeOrmModule],
})
export class PostsBackfillModule {}
