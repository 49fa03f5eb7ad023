import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { JobsService, recordingLogger } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import request from 'supertest';
import { exampleDatabaseSpec } from './support/example-database';
import { startExampleApp } from './support/example-app';

describe('example app: POST /orgs/onboard (bulk) and the library error filter', () => {
  let app: INestApplication;
  exampleDatabaseSpec({
    beforeDrop: async () => {
      await app?.close();
    },
  });
  beforeAll(async () => {
    app = await startExampleApp({
      driver: 'memory',
      roles: ['web'],
      clock: frozenClock(),
      logger: recordingLogger(),
    });
  });

  const queued = async (): Promise<number> =>
    (await app.get(JobsService).stats()).reduce((sum, q) => sum + q.ready + q.delayed, 0);

  it('queues one onboarding per org and answers their ids in order', async () => {
    const orgIds = [randomUUID(), randomUUID(), randomUUID()];
    const res = await request(app.getHttpServer())
      .post('/orgs/onboard')
      .send({ orgIds })
      .expect(202);
    expect(res.body).toHaveLength(3);
    const rows = await Promise.all(
      (res.body as { id: string }[]).map(({ id }) => app.get(JobsService).driver.get(id)),
    );
    expect(rows.map((row) => row?.tenantId)).toEqual(orgIds);
  });

  it('answers 400 naming every bad org id by index, and queues none of the list', async () => {
    const before = await queued();
    const res = await request(app.getHttpServer())
      .post('/orgs/onboard')
      .send({ orgIds: [randomUUID(), 'nope', randomUUID(), 7] })
      .expect(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      code: 'X_JOB_INPUT_INVALID',
      issues: [
        { index: 1, path: 'orgId' },
        { index: 3, path: 'orgId' },
      ],
    });
    expect(await queued()).toBe(before);
  });
});
