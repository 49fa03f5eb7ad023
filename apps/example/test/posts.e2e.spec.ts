import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { EXAMPLE_SUBSCRIBERS, SubscribersService } from '@ultimat3/example-jobs';
import {
  OUTBOX_DATA_SOURCE,
  OUTBOX_MODULE_OPTIONS,
  OutboxHost,
  recordingLogger,
  type JobRow,
  type OutboxRelay,
  type ResolvedOutboxModuleOptions,
  type StepRecord,
} from '@ultimat3/jobs';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { exampleOutboxStore } from '../src/database';
import type { PublishedPost } from '../src/posts.controller';
import { exampleDatabaseSpec } from './support/example-database';
import { startExampleApp } from './support/example-app';
import { untilValue as until } from '../../../test/until';

/**
 * The transactional outbox through the example app, on a real PostgreSQL and the app's own TypeORM DataSource: the
 * app's module with the roles web + worker + relay in one process (production splits them across apps/example and
 * apps/worker). The relay passes only when the test runs one, so a committed request's job is seen STAGED first.
 */
describe('example app: POST /orgs/:orgId/posts through the transactional outbox', () => {
  let app: INestApplication;
  let relay: OutboxRelay;

  const db = exampleDatabaseSpec({
    beforeDrop: async () => {
      await app?.close();
    },
  });
  beforeAll(async () => {
    app = await startExampleApp(
      (dataSource) => ({
        driver: 'postgres',
        postgres: { dataSource },
        roles: ['web', 'worker', 'relay'],
        worker: { pollIntervalMs: 20, idlePollMaxMs: 100 },
        logger: recordingLogger(),
      }),
      (builder) =>
        builder.overrideProvider(OUTBOX_MODULE_OPTIONS).useFactory({
          inject: [OUTBOX_DATA_SOURCE],
          factory: (dataSource: DataSource): ResolvedOutboxModuleOptions => ({
            store: exampleOutboxStore(dataSource),
            mode: 'optional',
            // no timed pass of its own: passes come from the test, and from the x_outbox_wake of a commit
            relay: { intervalMs: 600_000 },
          }),
        }),
    );
    const running = app.get(OutboxHost).relay;
    if (running === undefined) throw new Error('the relay role started no relay');
    relay = running;
    await relay.runOnce(); // after the pass start() kicked off: the loop now waits for the test
  });

  const count = async (sql: string, values: unknown[]): Promise<number> =>
    (await db.pool.query<{ n: number }>(sql, values)).rows[0]?.n ?? 0;
  const outboxRows = (id: string) =>
    db.pool.query<{ published: boolean }>(
      'select published_at is not null as published from x_outbox where id = $1',
      [id],
    );
  const jobRows = (id: string): Promise<number> =>
    count('select count(*)::int as n from x_jobs where id = $1', [id]);
  const posts = (orgId: string): Promise<number> =>
    count('select count(*)::int as n from posts where org_id = $1', [orgId]);

  it('commits the post with its job staged; the relay publishes it and the worker runs it once', async () => {
    const orgId = randomUUID();
    const res = await request(app.getHttpServer())
      .post(`/orgs/${orgId}/posts`)
      .send({ title: 'Hello, subscribers' })
      .expect(201);
    const { post, job } = res.body as PublishedPost;
    expect(post).toMatchObject({ orgId, title: 'Hello, subscribers' });

    // committed together: the post, and the job staged in the outbox under the id the request answered
    expect(await posts(orgId)).toBe(1);
    expect((await outboxRows(job.id)).rows).toHaveLength(1);

    // The commit notified x_outbox_wake, so the relay's wake may have published it already; one pass makes sure.
    await relay.runOnce();
    expect((await outboxRows(job.id)).rows).toEqual([{ published: true }]);

    const done = await until('the job to be done', async () => {
      const current = await request(app.getHttpServer()).get(`/jobs/${job.id}`).expect(200);
      const row = current.body as JobRow;
      return row.state === 'done' ? row : undefined;
    });
    expect(done).toMatchObject({
      name: 'notifySubscribers',
      runId: job.runId,
      tenantId: orgId,
      idempotencyKey: `notify:${post.id}`,
      attempt: 1,
    });
    const steps = await request(app.getHttpServer()).get(`/jobs/${job.id}/steps`).expect(200);
    expect((steps.body as StepRecord[]).map((s) => s.name)).toEqual([
      'list',
      ...EXAMPLE_SUBSCRIBERS.map((s) => `notify:${s.id}`),
    ]);
    const sent = app.get(SubscribersService).sent.filter((n) => n.postId === post.id);
    expect(sent.map((n) => n.subscriberId)).toEqual(EXAMPLE_SUBSCRIBERS.map((s) => s.id));

    // published once: the next pass finds nothing, and there is still one job row
    expect(await relay.runOnce()).toMatchObject({ claimed: 0 });
    expect(await jobRows(job.id)).toBe(1);
    const listed = await request(app.getHttpServer()).get(`/orgs/${orgId}/posts`).expect(200);
    expect((listed.body as { id: string }[]).map((p) => p.id)).toEqual([post.id]);
  });

  it('runs on one pool: the jobs statements share the TypeORM DataSource, no pool of their own', async () => {
    const byApp = (name: string): Promise<number> =>
      count(
        'select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = $2',
        [db.name, name],
      );
    expect(await byApp('ultimat3-jobs')).toBe(0);
    expect(await byApp('ultimat3-example')).toBeGreaterThan(0);
  });

  it('?fail=1 throws after the enqueue: no post, no outbox row, no job', async () => {
    const orgId = randomUUID();
    const outboxBefore = await count('select count(*)::int as n from x_outbox', []);
    const res = await request(app.getHttpServer())
      .post(`/orgs/${orgId}/posts?fail=1`)
      .send({ title: 'Doomed' })
      .expect(500);
    const { rolledBack } = res.body as { rolledBack: { postId: string; jobId: string } };

    expect(await posts(orgId)).toBe(0);
    expect((await outboxRows(rolledBack.jobId)).rows).toEqual([]);
    expect(await count('select count(*)::int as n from x_outbox', [])).toBe(outboxBefore);
    expect(await relay.runOnce()).toMatchObject({ claimed: 0 });
    expect(await jobRows(rolledBack.jobId)).toBe(0);
    await request(app.getHttpServer()).get(`/jobs/${rolledBack.jobId}`).expect(404);
    await request(app.getHttpServer()).get(`/orgs/${orgId}/posts`).expect(200).expect([]);
    expect(app.get(SubscribersService).sent.some((n) => n.orgId === orgId)).toBe(false);
  });

  it('refuses a bad org id or title with 400, writing nothing', async () => {
    const outboxBefore = await count('select count(*)::int as n from x_outbox', []);
    await request(app.getHttpServer())
      .post('/orgs/not-a-uuid/posts')
      .send({ title: 'x' })
      .expect(400);
    const orgId = randomUUID();
    await request(app.getHttpServer()).post(`/orgs/${orgId}/posts`).send({}).expect(400);
    expect(await posts(orgId)).toBe(0);
    expect(await count('select count(*)::int as n from x_outbox', [])).toBe(outboxBefore);
  });
});
