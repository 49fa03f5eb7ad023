import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsModule } from 'nestjs-cls';
import { ClsPluginTransactional, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { job, t } from '@ultimat3/jobs';
import { outboxAppImports } from '../../test/outbox-app';
import { pgJobsSpec } from '../../test/pg-jobs-spec';

@Entity('cls_posts')
class ClsPost {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  title!: string;
}

const ran: string[] = [];
const announce = job({
  name: 'outbox-cls.announce',
  input: t.object({ postId: t.uuid }),
  idempotencyKey: ({ postId }) => `announce:${postId}`,
  tenant: 'none',
  run: ({ input }) => void ran.push(input.postId),
});

/** An app service using @nestjs-cls/transactional: its @Transactional() method is the transaction enqueue joins. */
@Injectable()
class PostsService {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @Transactional()
  async publish(title: string, fail: boolean): Promise<{ postId: string; jobId: string }> {
    const post = await this.txHost.tx.getRepository(ClsPost).save({ id: randomUUID(), title });
    const queued = await announce.enqueue({ postId: post.id });
    if (fail) throw new Error('rejected after the enqueue');
    return { postId: post.id, jobId: queued.id };
  }
}

describe('the outbox joins the transaction of @nestjs-cls/transactional', () => {
  let app: INestApplicationContext;

  const db = pgJobsSpec({
    beforeDrop: async () => {
      await app?.close();
    },
  });
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: outboxAppImports(db, {
        entities: [ClsPost],
        jobs: [{ announce }],
        after: [
          ClsModule.forRoot({
            global: true,
            plugins: [
              new ClsPluginTransactional({
                imports: [TypeOrmModule],
                adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
              }),
            ],
          }),
        ],
      }),
      providers: [PostsService],
    }).compile();
    app = await moduleRef.init();
  });

  const count = async (sql: string, id: string): Promise<number> =>
    (await db.pool.query<{ n: number }>(sql, [id])).rows[0]?.n ?? 0;

  it('a @Transactional() method that throws after its enqueue leaves no post and no job', async () => {
    await expect(app.get(PostsService).publish('doomed', true)).rejects.toThrow(
      'rejected after the enqueue',
    );
    const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from cls_posts');
    expect(rows[0]?.n).toBe(0);
    const staged = await db.pool.query<{ n: number }>('select count(*)::int as n from x_outbox');
    expect(staged.rows[0]?.n).toBe(0);
  });

  it('a committed one is staged in its transaction (mode: required accepts it) and runs once', async () => {
    const { postId, jobId } = await app.get(PostsService).publish('hello', false);
    const deadline = Date.now() + 10_000;
    while (!ran.includes(postId) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(ran.filter((id) => id === postId)).toHaveLength(1);
    expect(await count('select count(*)::int as n from x_outbox where id = $1', jobId)).toBe(1);
    expect(await count('select count(*)::int as n from x_jobs where id = $1', jobId)).toBe(1);
  });
});
