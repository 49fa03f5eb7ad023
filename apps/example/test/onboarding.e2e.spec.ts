import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { MailService, OrgsService } from '@ultimat3/example-jobs';
import { JobsService, recordingLogger, type JobRow } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import request from 'supertest';
import { exampleDatabaseSpec } from './support/example-database';
import { startExampleApp } from './support/example-app';

const THREE_DAYS_MS = 3 * 86_400_000;
/** The idle poll ceiling in these tests: three frozen days are 4,320 idle polls, not 129,600 at the default 2 s. */
const IDLE_POLL_MAX_MS = 60_000;

describe('example app: POST /orgs/:orgId/onboard', () => {
  let app: INestApplication;
  let clock: FrozenClock;
  // the app's TypeORM DataSource needs a database even when its jobs run on the memory driver
  exampleDatabaseSpec();

  beforeEach(async () => {
    clock = frozenClock();
    app = await startExampleApp({
      driver: 'memory',
      roles: ['web', 'worker'],
      worker: { idlePollMaxMs: IDLE_POLL_MAX_MS },
      clock,
      logger: recordingLogger(),
    });
  });

  afterEach(async () => {
    await app?.close();
  });

  /** Drives the worker on the frozen clock until the row's state is `state` (bounded turns, no wall time). */
  async function until(id: string, state: JobRow['state'], stepMs = 10): Promise<JobRow> {
    for (let turn = 0; turn < 50; turn++) {
      const res = await request(app.getHttpServer()).get(`/jobs/${id}`).expect(200);
      const row = res.body as JobRow;
      if (row.state === state) return row;
      await clock.advance(stepMs);
    }
    throw new Error(`job ${id} never reached ${state}`);
  }

  it('queues the onboarding, runs its first steps, sleeps three days, then nudges', async () => {
    const orgId = randomUUID();
    const res = await request(app.getHttpServer()).post(`/orgs/${orgId}/onboard`).expect(202);
    const { id, deduped } = res.body as { id: string; deduped: boolean };
    expect(deduped).toBe(false);

    const parked = await until(id, 'suspended');
    expect(parked).toMatchObject({ name: 'onboard-org', tenantId: orgId });
    expect(parked.runAt).toBe(parked.updatedAt + THREE_DAYS_MS);
    const steps = await request(app.getHttpServer()).get(`/jobs/${id}/steps`).expect(200);
    expect((steps.body as { name: string }[]).map((s) => s.name)).toEqual([
      'provision',
      'welcome-email',
      'sleep:3d',
    ]);
    expect(app.get(OrgsService).find(orgId)).toBeDefined();
    expect(app.get(MailService).sent.map((m) => m.template)).toEqual(['welcome']);

    // The same org again while its onboarding is live answers the same job.
    const again = await request(app.getHttpServer()).post(`/orgs/${orgId}/onboard`).expect(202);
    expect(again.body).toMatchObject({ id, deduped: true });

    await clock.advance(THREE_DAYS_MS);
    await until(id, 'done', IDLE_POLL_MAX_MS);
    expect(app.get(MailService).sent.map((m) => m.template)).toEqual(['welcome', 'nudge']);
  });

  it('answers 400 with the code for an org id that is not a UUID, and queues nothing', async () => {
    const res = await request(app.getHttpServer()).post('/orgs/not-a-uuid/onboard').expect(400);
    expect(res.body).toMatchObject({ code: 'X_JOB_INPUT_INVALID' });
    expect(await app.get(JobsService).stats()).toEqual([]);
  });

  it('lists the manifest and answers 404 for an unknown job', async () => {
    const res = await request(app.getHttpServer()).get('/jobs').expect(200);
    expect(res.body).toMatchObject([
      // the module's own retention sweep (JobsModule.forRoot({ retention }), on by default)
      { name: 'jobs.retention.sweep', queue: 'jobs.retention', tenant: 'none', inline: false },
      { name: 'notifySubscribers', tenant: 'input', retry: { attempts: 5 } },
      { name: 'onboard-org', tenant: 'input', retry: { attempts: 5 }, inline: false },
      { name: 'pollHost', tenant: 'none', retry: { attempts: 3 } },
      { name: 'pollHosts', tenant: 'none', retry: { attempts: 3 } },
      // the posts.slug backfill (PostsBackfillModule): a job like any other, its idempotency key its name
      { name: 'posts.slug', tenant: 'none', queue: 'default' },
    ]);
    await request(app.getHttpServer()).get(`/jobs/${randomUUID()}`).expect(404);
  });
});
