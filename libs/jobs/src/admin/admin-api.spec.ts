import 'reflect-metadata';
import request from 'supertest';
import { AdminGuardRequiredError } from '../errors/admin-errors';
import { claimOf } from '../driver/job-row';
import { JobsRuntime } from '../nest/jobs.runtime';
import { JobsService } from '../nest/jobs.service';
import { uuidv7 } from '../util/ids';
import { BearerGuard, other, READER, WRITER } from '../../test/admin/admin-app';
import { adminMemoryApps } from '../../test/admin/admin-memory';
import { enqueueRequest } from '../../test/requests';
import { JobsAdminModule } from './admin.module';

describe('JobsAdminModule: mounting, the guard, canWrite and CSRF (memory backend)', () => {
  const apps = adminMemoryApps('jobs-admin-api-');
  const boot = apps.boot;
  const writerApp = () =>
    boot({
      guard: BearerGuard,
      canWrite: (req) => req.headers.authorization === WRITER.authorization,
    });

  it('refuses to mount without a guard (X_ADMIN_GUARD_REQUIRED), unless public: true', async () => {
    expect(() => JobsAdminModule.forRoot({ path: '/_x/jobs' })).toThrow(AdminGuardRequiredError);
    expect(() => JobsAdminModule.forRoot({})).toThrow(
      expect.objectContaining({ code: 'X_ADMIN_GUARD_REQUIRED' }),
    );
    expect(() => JobsAdminModule.forRoot({ public: true, path: 'no-slash' })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    const open = await boot({ public: true, path: '/ops/jobs' });
    const res = await request(open.getHttpServer()).get('/ops/jobs/api/queues').expect(200);
    expect(res.body).toEqual([]);
  });

  it("runs the app's guard before every route: page, assets and API", async () => {
    const server = (await writerApp()).getHttpServer();
    for (const path of ['/_x/jobs', '/_x/jobs/assets/admin.js', '/_x/jobs/api/queues']) {
      await request(server).get(path).expect(403);
      await request(server).get(path).set(READER).expect(200);
    }
    const page = await request(server).get('/_x/jobs').set(READER);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('/_x/jobs/assets/admin.js');
    await request(server).get('/_x/jobs/assets/..%2Fadmin.js').set(READER).expect(404);
    await request(server).get('/_x/jobs/assets/other.js').set(READER).expect(404);
  });

  it('a write needs canWrite, a token issued to the same session, and the same origin', async () => {
    const server = (await writerApp()).getHttpServer();
    const pause = (headers: Record<string, string>) =>
      request(server).post('/_x/jobs/api/queues/other/pause').set(headers).send({});

    const readerSession = await request(server).get('/_x/jobs/api/session').set(READER).expect(200);
    expect(readerSession.body).toMatchObject({ canWrite: false, csrfToken: null });
    const session = await request(server).get('/_x/jobs/api/session').set(WRITER).expect(200);
    // the memory backend keeps a backfill ledger; the page polls every 2 s by default
    expect(session.body).toMatchObject({
      canWrite: true,
      pollMs: 2000,
      backfills: true,
      routes: [],
    });
    const token = session.body.csrfToken as string;

    const refused = async (headers: Record<string, string>, reason: string) => {
      const res = await pause(headers).expect(403);
      expect(res.body).toMatchObject({ code: 'X_ADMIN_WRITE_REFUSED' });
      expect(res.body.message).toContain(reason);
    };
    await refused({ ...WRITER }, 'csrf-token');
    await refused({ ...WRITER, 'x-jobs-csrf': `${token}x` }, 'csrf-token');
    await refused({ ...READER, 'x-jobs-csrf': token }, 'csrf-token'); // another session's token
    await refused({ ...WRITER, 'x-jobs-csrf': token, origin: 'https://evil.example' }, 'origin');
    await refused({ ...WRITER, 'x-jobs-csrf': token, 'sec-fetch-site': 'cross-site' }, 'origin');
    const reader = await request(server).get('/_x/jobs/api/session').set(READER);
    await refused({ ...READER, 'x-jobs-csrf': `${reader.body.csrfToken}` }, 'csrf-token');

    const ok = await pause({ ...WRITER, 'x-jobs-csrf': token }).expect(200);
    expect(ok.body).toEqual({ queue: 'other', paused: true });
    const queues = await request(server).get('/_x/jobs/api/queues').set(READER);
    expect(queues.body).toEqual([expect.objectContaining({ queue: 'other', paused: true })]);
  });

  it('answers the projection with its filters and refuses bad input with its code', async () => {
    const server = (await writerApp()).getHttpServer();
    const { id } = await other.enqueue({ n: 7 });
    const list = await request(server)
      .get('/_x/jobs/api/jobs')
      .query({ queue: 'other', limit: 1 })
      .set(READER);
    expect(list.status).toBe(200);
    expect(list.body.jobs.map((j: { id: string }) => j.id)).toEqual([id]);
    const none = await request(server)
      .get('/_x/jobs/api/jobs')
      .query({ state: 'dead' })
      .set(READER);
    expect(none.body.jobs).toEqual([]);
    const one = await request(server).get(`/_x/jobs/api/jobs/${id}`).set(READER).expect(200);
    expect(one.body).toMatchObject({ id, name: 'admin.other', input: { n: 7 }, steps: [] });
    const bad = await request(server).get('/_x/jobs/api/jobs').query({ limit: 'many' }).set(READER);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('X_JOB_PAGE_INVALID');
    await request(server).get('/_x/jobs/api/counters').set(READER).expect(400);
    const backfills = await request(server).get('/_x/jobs/api/backfills').set(READER).expect(200);
    expect(backfills.body).toMatchObject({
      available: true,
      declared: [],
      pending: [],
      passes: [],
    });
  });

  it('refuses a sinceMs, backfill status or backfill limit out of bounds with X_VALUE_INVALID (400), never a 500', async () => {
    const server = (await writerApp()).getHttpServer();
    const refused = async (path: string, query: Record<string, string>, field: string) => {
      const res = await request(server).get(path).query(query).set(READER);
      expect([res.status, res.body.code]).toEqual([400, 'X_VALUE_INVALID']);
      expect(res.body.message).toContain(field);
    };
    for (const sinceMs of ['abc', '1.5', '99999999999999999999']) {
      await refused('/_x/jobs/api/stats', { sinceMs }, 'sinceMs');
      await refused('/_x/jobs/api/counters', { job: other.name, sinceMs }, 'sinceMs');
    }
    await refused('/_x/jobs/api/backfills', { status: 'bogus' }, 'status');
    for (const limit of ['abc', '0', '-1', '1001']) {
      await refused('/_x/jobs/api/backfills', { limit }, 'limit');
    }
    await request(server)
      .get('/_x/jobs/api/backfills')
      .query({ limit: 1000 })
      .set(READER)
      .expect(200);
  });

  it('narrows lists by every query filter: tenant, id prefix, and the queue of the dead letters', async () => {
    const server = (await writerApp()).getHttpServer();
    const { driver } = apps.app.get(JobsService);
    const row = (name: string, queue: string, tenantId: string) =>
      enqueueRequest({ name, queue, tenantId, idempotencyKey: `${queue}:${tenantId}` });
    const a = await driver.enqueue(row('filters.a', 'fq', 't-a'));
    const b = await driver.enqueue(row('filters.a', 'fq', 't-b'));
    const c = await driver.enqueue(row('filters.b', 'fq2', 't-a'));
    const list = async (path: string, query: Record<string, string>) => {
      const res = await request(server).get(path).query(query).set(READER).expect(200);
      return res.body as { jobs: { id: string }[]; next: string | null };
    };
    const ids = async (path: string, query: Record<string, string>) =>
      (await list(path, query)).jobs.map((j) => j.id).sort();
    expect(await ids('/_x/jobs/api/jobs', { tenantId: 't-a' })).toEqual([a.id, c.id].sort());
    expect(await ids('/_x/jobs/api/jobs', { idPrefix: b.id })).toEqual([b.id]);
    // three rows are fewer than the default page: it is the last one
    expect((await list('/_x/jobs/api/jobs', {})).next).toBeNull();

    const claimed = await driver.claim({
      workerId: 'w',
      slots: [
        { queue: 'fq', limit: 2 },
        { queue: 'fq2', limit: 1 },
      ],
      visibilityTimeoutMs: 30_000,
    });
    for (const r of claimed)
      await driver.nack(r.id, { kind: 'dead', ...claimOf(r), error: 'X_NO' });
    expect(await ids('/_x/jobs/api/dead', { queue: 'fq2' })).toEqual([c.id]);
  });

  it('narrows the backfill passes by ?status', async () => {
    const server = (await writerApp()).getHttpServer();
    const ledger = apps.app.get(JobsRuntime).config.backend.backfills!;
    const pass = (name: string) => {
      const nowMs = Date.now();
      const [id, jobId, runId] = [uuidv7(nowMs), uuidv7(nowMs), uuidv7(nowMs)];
      return ledger.begin({ id, name, checksum: 'c', appVersion: null, jobId, runId, nowMs });
    };
    await pass('sweep-running');
    const done = await pass('sweep-done');
    const progress = { rows: 1, batches: 1, lastCursor: null, nowMs: Date.now() };
    await ledger.finish(done.id, 'completed', progress, null);
    const res = await request(server)
      .get('/_x/jobs/api/backfills')
      .query({ status: 'completed' })
      .set(READER)
      .expect(200);
    expect(res.body.passes.map((p: { name: string }) => p.name)).toEqual(['sweep-done']);
  });

  it('reads stats and counters over the ?sinceMs window asked for', async () => {
    const server = (await writerApp()).getHttpServer();
    const { driver } = apps.app.get(JobsService);
    await other.enqueue({ n: 1 });
    const [row] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: other.queue, limit: 1 }],
      visibilityTimeoutMs: 30_000,
    });
    await driver.nack(row!.id, { kind: 'dead', ...claimOf(row!), error: 'X_BOOM: no' });
    const counters = (query: Record<string, string | number>) =>
      request(server).get('/_x/jobs/api/counters').query(query).set(READER).expect(200);
    expect((await counters({ job: other.name })).body).toEqual([
      expect.objectContaining({ job: other.name, dead: 1 }),
    ]);
    const later = Date.now() + 3_600_000;
    expect((await counters({ job: other.name, sinceMs: later })).body).toEqual([]);
    const stats = await request(server)
      .get('/_x/jobs/api/stats')
      .query({ sinceMs: later })
      .set(READER)
      .expect(200);
    expect(stats.body).toMatchObject({ sinceMs: later, totals: [] });
  });

  it('mounts extension routes at <path>/ext/<name> behind the same guard and origin check', async () => {
    const seen: boolean[] = [];
    const server = (
      await boot({
        guard: BearerGuard,
        canWrite: (req) => req.headers.authorization === WRITER.authorization,
        routes: [
          {
            name: 'mcp',
            handle: ({ response, canWrite }) => {
              seen.push(canWrite);
              response.setHeader('content-type', 'application/json');
              response.end(JSON.stringify({ canWrite }));
            },
          },
        ],
      })
    ).getHttpServer();
    await request(server).post('/_x/jobs/ext/mcp').send({}).expect(403);
    await request(server)
      .post('/_x/jobs/ext/mcp')
      .set({ ...READER, origin: 'https://evil.example' })
      .expect(403);
    const res = await request(server).post('/_x/jobs/ext/mcp').set(WRITER).send({}).expect(200);
    expect(res.body).toEqual({ canWrite: true });
    await request(server).get('/_x/jobs/ext/nope').set(READER).expect(404);
    expect(seen).toEqual([true]);
  });
});
