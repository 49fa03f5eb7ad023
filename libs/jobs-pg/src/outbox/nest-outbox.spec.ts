import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import {
  BadRequestException,
  Body,
  Controller,
  Post as HttpPost,
  UseInterceptors,
  type INestApplication,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Column, DataSource, Entity, PrimaryColumn, type EntityManager } from 'typeorm';
import { currentEntityManager, job, OutboxHost, OutboxInterceptor, t } from '@ultimat3/jobs';
import { outboxAppImports } from '../../test/outbox-app';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { until } from '../../../../test/until';

@Entity('posts')
class Post {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  title!: string;
}

const ran: string[] = [];
const notifySubscribers = job({
  name: 'outbox-nest.notify-subscribers',
  input: t.object({ postId: t.uuid }),
  idempotencyKey: ({ postId }) => `notify:${postId}`,
  tenant: 'none',
  async run({ input }) {
    ran.push(input.postId);
  },
});

/** Publishes a post and enqueues its notification in one request; `fail` throws after both. */
@Controller('posts')
@UseInterceptors(OutboxInterceptor) // with the global one too: the inner joins the outer's transaction
class PostsController {
  @HttpPost()
  async publish(@Body() body: { title: string; fail?: boolean }) {
    const manager = currentEntityManager<EntityManager>();
    if (manager === undefined) throw new Error('no ambient transaction');
    const post = await manager.getRepository(Post).save({ id: randomUUID(), title: body.title });
    const queued = await notifySubscribers.enqueue({ postId: post.id });
    if (body.fail) throw new BadRequestException('rejected after the enqueue');
    return { postId: post.id, jobId: queued.id, runId: queued.runId };
  }
}

describe('OutboxInterceptor (Nest + TypeORM + PostgreSQL)', () => {
  let app: INestApplication;
  let dataSource: DataSource;

  const db = pgJobsSpec({
    beforeDrop: async () => {
      await app?.close();
    },
  });
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: outboxAppImports(db, { entities: [Post], jobs: [{ notifySubscribers }] }),
      controllers: [PostsController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    dataSource = app.get(DataSource);
  });

  const count = async (table: 'posts' | 'x_outbox' | 'x_jobs'): Promise<number> =>
    (await db.pool.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]?.n ?? 0;

  it('leaves no job and no business row when the request throws after its enqueue', async () => {
    const opened = jest.spyOn(dataSource, 'createQueryRunner');
    await request(app.getHttpServer())
      .post('/posts')
      .send({ title: 'doomed', fail: true })
      .expect(400);
    expect(opened).toHaveBeenCalledTimes(1); // the controller's interceptor joined the global one
    opened.mockRestore();
    expect(await count('posts')).toBe(0);
    expect(await count('x_outbox')).toBe(0);
    expect(await count('x_jobs')).toBe(0);
  });

  it('runs the job of a committed request once, under the ids the request answered', async () => {
    const res = await request(app.getHttpServer())
      .post('/posts')
      .send({ title: 'hello' })
      .expect(201);
    const { postId, jobId, runId } = res.body as { postId: string; jobId: string; runId: string };
    await until(async () => ran.includes(postId));
    await until(async () => {
      const { rows } = await db.pool.query<{ state: string }>(
        'select state from x_jobs where id = $1',
        [jobId],
      );
      return rows[0]?.state === 'done';
    });
    expect(ran.filter((id) => id === postId)).toHaveLength(1);
    const { rows } = await db.pool.query(
      'select j.run_id, o.published_at is not null as published from x_jobs j join x_outbox o on o.id = j.id where j.id = $1',
      [jobId],
    );
    expect(rows).toEqual([{ run_id: runId, published: true }]);
    expect(await dataSource.getRepository(Post).findOneBy({ id: postId })).toMatchObject({
      title: 'hello',
    });
    expect(app.get(OutboxHost).relay).toBeDefined();
  });

  it('joins an explicit { tx: manager } outside a request, and refuses no transaction under mode required', async () => {
    const before = { posts: await count('posts'), outbox: await count('x_outbox') };
    await expect(
      dataSource.transaction(async (manager) => {
        const post = await manager.getRepository(Post).save({ id: randomUUID(), title: 'cli' });
        await notifySubscribers.enqueue({ postId: post.id }, { tx: manager });
        throw new Error('the script changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    expect({ posts: await count('posts'), outbox: await count('x_outbox') }).toEqual(before);

    const postId = randomUUID();
    let finished: EntityManager | undefined;
    await dataSource.transaction(async (manager) => {
      await manager.getRepository(Post).save({ id: postId, title: 'cli' });
      await notifySubscribers.enqueue({ postId }, { tx: manager });
      finished = manager;
    });
    await until(async () => ran.includes(postId));
    // a transaction that already committed is no transaction to stage in
    await expect(
      notifySubscribers.enqueue({ postId: randomUUID() }, { tx: finished }),
    ).rejects.toMatchObject({ code: 'X_OUTBOX_NO_TX' });

    await expect(notifySubscribers.enqueue({ postId: randomUUID() })).rejects.toMatchObject({
      code: 'X_OUTBOX_NO_TX',
    });
    expect(await count('x_outbox')).toBe(before.outbox + 1);
  });
});
