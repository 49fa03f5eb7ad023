import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { claimOf } from '../driver/job-row';
import { JobsService } from '../nest/jobs.service';
import { BearerGuard, other, WRITER } from '../../test/admin/admin-app';
import { adminMemoryApps } from '../../test/admin/admin-memory';
import { JobsAdminModule } from './admin.module';
import type { JobsAdminOptions } from './admin.options';

type Server = ReturnType<INestApplication['getHttpServer']>;

describe('JobsAdminModule writes: every write route checked, and what it moves (memory backend)', () => {
  const apps = adminMemoryApps('jobs-admin-writes-');
  const boot = apps.boot;
  const writerApp = (options: JobsAdminOptions = {}) =>
    boot({
      guard: BearerGuard,
      canWrite: (req) => req.headers.authorization === WRITER.authorization,
      ...options,
    });
  /** The writer's headers with a write token issued to its session. */
  const writerHeaders = async (server: Server, extra: Record<string, string> = {}) => {
    const session = await request(server)
      .get('/_x/jobs/api/session')
      .set({ ...WRITER, ...extra })
      .expect(200);
    return { ...WRITER, 'x-jobs-csrf': session.body.csrfToken as string };
  };

  /** Every write route: its label, and its path and body for a ready row's id. */
  const writes: readonly (readonly [string, (id: string) => readonly [string, object]])[] = [
    ['cancel', (id) => [`/_x/jobs/api/jobs/${id}/cancel`, { reason: 'r' }]],
    ['retry', (id) => [`/_x/jobs/api/jobs/${id}/retry`, {}]],
    ['bulk', () => ['/_x/jobs/api/bulk', { action: 'remove', filter: { state: 'ready' } }]],
    [
      'bulk preview',
      () => ['/_x/jobs/api/bulk/preview', { action: 'remove', filter: { state: 'ready' } }],
    ],
    ['queue pause', () => ['/_x/jobs/api/queues/other/pause', {}]],
    ['task pause', () => ['/_x/jobs/api/tasks/nightly/pause', {}]],
  ];

  it.each(writes)(
    'a %s without a write token is X_ADMIN_WRITE_REFUSED and changes nothing',
    async (_label, route) => {
      const server = (await writerApp()).getHttpServer();
      const jobs = apps.app.get(JobsService);
      const { id } = await other.enqueue({ n: 1 });
      const [path, body] = route(id);
      const res = await request(server).post(path).set(WRITER).send(body).expect(403);
      expect(res.body).toMatchObject({ code: 'X_ADMIN_WRITE_REFUSED' });
      expect((await jobs.inspectJob(id)).state).toBe('ready');
      expect((await jobs.inspectQueues()).map((q) => q.paused)).toEqual([false]);
      expect((await jobs.inspectTasks()).filter((t) => t.paused)).toEqual([]);
    },
  );

  it('canWrite is asked again at the write, not only when the token was issued', async () => {
    const server = (
      await writerApp({ canWrite: (req) => req.headers['x-role'] === 'ops' })
    ).getHttpServer();
    const headers = await writerHeaders(server, { 'x-role': 'ops' });
    const pause = (extra: Record<string, string>) =>
      request(server)
        .post('/_x/jobs/api/queues/other/pause')
        .set({ ...headers, ...extra })
        .send({});
    const refused = await pause({}).expect(403);
    expect(refused.body.message).toContain('read-only');
    await pause({ 'x-role': 'ops' }).expect(200);
  });

  it('without canWrite nobody may write: a public mount issues no write token', async () => {
    const server = (await boot({ public: true })).getHttpServer();
    const session = await request(server).get('/_x/jobs/api/session').expect(200);
    expect(session.body).toMatchObject({ canWrite: false, csrfToken: null });
  });

  it('an allowed origin and a typed-in navigation (Sec-Fetch-Site: none) pass the origin check', async () => {
    const server = (
      await writerApp({ allowedOrigins: ['https://ops.example.com'] })
    ).getHttpServer();
    const headers = await writerHeaders(server);
    for (const extra of [{ origin: 'https://ops.example.com' }, { 'sec-fetch-site': 'none' }]) {
      await request(server)
        .post('/_x/jobs/api/queues/other/pause')
        .set({ ...headers, ...extra })
        .send({})
        .expect(200);
    }
    await request(server)
      .post('/_x/jobs/api/queues/other/pause')
      .set({ ...headers, origin: 'https://other.example.com' })
      .expect(403);
  });

  it('tasks pause and resume by their verb; another verb, or a task nothing knows, is 404', async () => {
    const server = (await writerApp()).getHttpServer();
    const jobs = apps.app.get(JobsService);
    const headers = await writerHeaders(server);
    const post = (verb: string, task = 'nightly') =>
      request(server).post(`/_x/jobs/api/tasks/${task}/${verb}`).set(headers).send({});
    const paused = async () =>
      (await jobs.inspectTasks()).filter((t) => t.paused).map((t) => t.name);
    // a task nothing knows (this app declares none, the backend saw none fire) is 404, and nothing is paused
    const unknown = await post('pause').expect(404);
    expect(unknown.body).toMatchObject({ code: 'X_TASK_NOT_FOUND' });
    expect(await paused()).toEqual([]);
    await jobs.driver.introspect!.recordTaskFire({ task: 'nightly', occurrenceMs: Date.now() });
    expect((await post('pause').expect(200)).body).toEqual({ task: 'nightly', paused: true });
    expect(await paused()).toEqual(['nightly']);
    await post('pause', 'nightlyy').expect(404);
    expect((await post('resume').expect(200)).body).toEqual({ task: 'nightly', paused: false });
    expect(await paused()).toEqual([]);
    await post('stop').expect(404);
  });

  it("a retry re-queues from the body's fromStep: that step and the later ones are dropped", async () => {
    const server = (await writerApp()).getHttpServer();
    const { driver } = apps.app.get(JobsService);
    const { id } = await other.enqueue({ n: 1 });
    const [claimed] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: other.queue, limit: 1 }],
      visibilityTimeoutMs: 30_000,
    });
    for (const name of ['fetch', 'transform'])
      await driver.steps.save(id, claimOf(claimed!), {
        name,
        attempt: 1,
        startedAt: 1,
        completedAt: 2,
      });
    await driver.nack(id, { kind: 'dead', ...claimOf(claimed!), error: 'X_BOOM: no' });

    const headers = await writerHeaders(server);
    const res = await request(server)
      .post(`/_x/jobs/api/jobs/${id}/retry`)
      .set(headers)
      .send({ fromStep: 'transform' })
      .expect(200);
    expect(res.body).toMatchObject({ id, state: 'ready' });
    const view = await request(server).get(`/_x/jobs/api/jobs/${id}`).set(WRITER).expect(200);
    expect(view.body.steps.map((s: { name: string }) => s.name)).toEqual(['fetch']);
  });

  it("a body's fromStep or reason that is not a string is X_VALUE_INVALID, and nothing moves", async () => {
    const server = (await writerApp()).getHttpServer();
    const jobs = apps.app.get(JobsService);
    const { id } = await other.enqueue({ n: 1 });
    const headers = await writerHeaders(server);
    for (const [verb, body] of [
      ['retry', { fromStep: 5 }],
      ['retry', { fromStep: ['transform'] }],
      ['cancel', { reason: { why: 'x' } }],
    ] as const) {
      const res = await request(server)
        .post(`/_x/jobs/api/jobs/${id}/${verb}`)
        .set(headers)
        .send(body);
      expect([res.status, res.body.code]).toEqual([400, 'X_VALUE_INVALID']);
      expect(res.body.message).toContain(Object.keys(body)[0]);
    }
    expect((await jobs.inspectJob(id)).state).toBe('ready');
    // null, like an absent field, is no reason
    await request(server)
      .post(`/_x/jobs/api/jobs/${id}/cancel`)
      .set(headers)
      .send({ reason: null })
      .expect(200);
  });

  it('a query parameter sent twice is X_VALUE_INVALID, never read as a filter', async () => {
    const server = (await writerApp()).getHttpServer();
    await other.enqueue({ n: 1 });
    const res = await request(server).get('/_x/jobs/api/jobs?queue=other&queue=x').set(WRITER);
    expect([res.status, res.body.code]).toEqual([400, 'X_VALUE_INVALID']);
  });

  it('mount options: public: false still needs a guard; pollMs is 100 at least', () => {
    expect(() => JobsAdminModule.forRoot({ public: false })).toThrow(
      expect.objectContaining({ code: 'X_ADMIN_GUARD_REQUIRED' }),
    );
    expect(() => JobsAdminModule.forRoot({ public: true, pollMs: 100 })).not.toThrow();
    expect(() => JobsAdminModule.forRoot({ public: true, pollMs: 99 })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });
});
