import { randomUUID } from 'node:crypto';
import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  InternalServerErrorException,
  Param,
  ParseUUIDPipe,
  Post as HttpPost,
  Query,
  UseInterceptors,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { notifySubscribers, Post } from '@ultimat3/example-jobs';
import { currentEntityManager, JobsService, OutboxInterceptor } from '@ultimat3/jobs';
import type { EntityManager, Repository } from 'typeorm';

/** The body of `POST /orgs/:orgId/posts`. */
export interface PublishPostBody {
  readonly title?: unknown;
}

/** What a publish answers: the post, and the job that notifies its subscribers once the post committed. */
export interface PublishedPost {
  readonly post: Post;
  /** The ids the job runs under: the outbox row's id IS the job's id, so `GET /jobs/:id` finds it once published. */
  readonly job: { readonly id: string; readonly runId: string };
}

const MAX_TITLE = 200;

function titleOf(body: PublishPostBody | undefined): string {
  const title = body?.title;
  if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE) {
    throw new BadRequestException(`title must be a non-empty string of at most ${MAX_TITLE}.`);
  }
  return title.trim();
}

/** An org's posts. Publishing one saves it and enqueues `notifySubscribers` in ONE transaction. */
@Controller('orgs/:orgId/posts')
export class PostsController {
  constructor(
    private readonly jobs: JobsService,
    @InjectRepository(Post) private readonly posts: Repository<Post>,
  ) {}

  /**
   * Publishes a post. `OutboxInterceptor` opens the transaction around this handler: the post is saved through its
   * `EntityManager`, and the enqueue is staged in the outbox in the same transaction. Both commit when the handler
   * returns, before the response is sent; a relay then publishes the job. `?fail=1` throws after the enqueue: both roll
   * back — no post, no outbox row, no job — and the 500 names the ids that never came to be.
   */
  @HttpPost()
  @HttpCode(HttpStatus.CREATED)
  @UseInterceptors(OutboxInterceptor)
  async publish(
    @Param('orgId', ParseUUIDPipe) orgId: string,
    @Body() body: PublishPostBody | undefined,
    @Query('fail') fail?: string,
  ): Promise<PublishedPost> {
    const manager = currentEntityManager<EntityManager>();
    if (manager === undefined) {
      throw new InternalServerErrorException('No ambient transaction: is OutboxInterceptor bound?');
    }
    const post = manager.getRepository(Post).create({
      id: randomUUID(),
      orgId,
      title: titleOf(body),
      publishedAt: new Date(),
    });
    await manager.getRepository(Post).save(post);
    const { id, runId } = await this.jobs.enqueue(notifySubscribers, { postId: post.id, orgId });
    if (fail === '1') {
      throw new InternalServerErrorException({
        statusCode: HttpStatus.INTERNAL_SERVER_ERROR,
        message: 'Failed after the enqueue (?fail=1): the post and its job rolled back together.',
        rolledBack: { postId: post.id, jobId: id },
      });
    }
    return { post, job: { id, runId } };
  }

  /** The org's committed posts, newest first. */
  @Get()
  list(@Param('orgId', ParseUUIDPipe) orgId: string): Promise<Post[]> {
    return this.posts.find({ where: { orgId }, order: { publishedAt: 'DESC', id: 'ASC' } });
  }
}
