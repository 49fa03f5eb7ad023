import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { JobsModule } from '../nest/jobs.module';
import { JobsService } from '../nest/jobs.service';
import { BearerGuard, other, WRITER } from '../../test/admin/admin-app';
import { JobsAdminModule } from './admin.module';

describe('JobsAdminModule bulk: the filter previewed is the filter moved', () => {
  let app: INestApplication | undefined;
  let assets: string;
  beforeAll(async () => {
    assets = await mkdtemp(join(tmpdir(), 'jobs-admin-bulk-'));
    await writeFile(join(assets, 'admin.js'), 'export {};');
  });
  afterAll(() => rm(assets, { recursive: true, force: true }));
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('refuses a bulk filter field a bulk call does not walk (X_VALUE_INVALID), moving nothing', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({ driver: 'memory', roles: ['web'] }),
        JobsModule.forFeature({ jobs: [{ other }] }),
        JobsAdminModule.forRoot({
          assetsDir: assets,
          guard: BearerGuard,
          canWrite: (req) => req.headers.authorization === WRITER.authorization,
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const server = app.getHttpServer();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await other.enqueue({ n })).id);
    const session = await request(server).get('/_x/jobs/api/session').set(WRITER).expect(200);
    const headers = { ...WRITER, 'x-jobs-csrf': session.body.csrfToken as string };

    // one row by its id prefix, in the eyes of a list: a bulk call walks the whole state
    const body = { action: 'remove', filter: { state: 'ready', queue: 'other', idPrefix: ids[0] } };
    for (const path of ['/_x/jobs/api/bulk/preview', '/_x/jobs/api/bulk']) {
      const res = await request(server).post(path).set(headers).send(body);
      expect([res.status, res.body.code]).toEqual([400, 'X_VALUE_INVALID']);
    }
    const left = await app.get(JobsService).listJobs({ queue: 'other' });
    expect(left.jobs.map((j) => j.id).sort()).toEqual([...ids].sort());

    // the fields it walks pass
    const preview = await request(server)
      .post('/_x/jobs/api/bulk/preview')
      .set(headers)
      .send({ action: 'remove', filter: { state: 'ready', queue: 'other' } })
      .expect(200);
    expect(preview.body).toMatchObject({ matched: 3, more: false });
  });
});
