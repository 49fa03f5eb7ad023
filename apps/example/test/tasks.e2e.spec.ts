import type { INestApplication } from '@nestjs/common';
import { EXAMPLE_HOSTS, HostsService } from '@ultimat3/example-jobs';
import { recordingLogger } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import request from 'supertest';
import { exampleDatabaseSpec } from './support/example-database';
import { startExampleApp } from './support/example-app';

const START = Date.UTC(2026, 0, 1, 0, 1);
const TICK = Date.UTC(2026, 0, 1, 0, 5);

describe('example app: GET /tasks and the scheduler role', () => {
  let app: INestApplication;
  let clock: FrozenClock;
  // the app's TypeORM DataSource needs a database even when its jobs run on the memory driver
  exampleDatabaseSpec();

  beforeEach(async () => {
    clock = frozenClock(START);
    app = await startExampleApp({
      driver: 'memory',
      roles: ['web', 'worker', 'scheduler'],
      clock,
      logger: recordingLogger(),
    });
  });

  afterEach(async () => {
    await app?.close();
  });

  it('lists the fleet poll task with the one job it enqueues', async () => {
    const res = await request(app.getHttpServer()).get('/tasks').expect(200);
    expect(res.body).toEqual([
      // the module's own retention task (JobsModule.forRoot({ retention }), on by default)
      {
        kind: 'task',
        name: 'jobs.retention',
        cron: '23 * * * *',
        tz: 'UTC',
        catchUp: 'run-once',
        maxCatchUp: 10,
        jobs: ['jobs.retention.sweep'],
      },
      {
        kind: 'task',
        name: 'pollFleet',
        cron: '*/5 * * * *',
        tz: 'UTC',
        catchUp: 'skip',
        maxCatchUp: 10,
        jobs: ['pollHosts'],
      },
    ]);
  });

  it('polls every host once at the next five-minute boundary', async () => {
    const hosts = app.get(HostsService);
    await clock.advance(TICK - START - 1);
    expect(hosts.polls).toEqual([]);
    for (let turn = 0; turn < 100 && hosts.polls.length < EXAMPLE_HOSTS.length; turn++) {
      await clock.advance(100);
    }
    expect(hosts.polls.map((p) => p.hostId).sort()).toEqual(EXAMPLE_HOSTS.map((h) => h.id).sort());
    expect(hosts.polls.every((p) => p.occurrenceMs === TICK)).toBe(true);
  });
});
