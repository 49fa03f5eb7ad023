import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { WorkerModule } from '../src/app.module';
import { startOwnedPostgres, type OwnedPostgres } from '../../../libs/jobs-pg/test/owned-postgres';
import { until } from './support/worker-process';

interface HealthBody {
  readonly status: string;
  readonly error: Record<string, { readonly status: string; readonly failing?: string[] }>;
  readonly details: Record<
    string,
    { readonly status: string; readonly failing?: string[] } & Record<string, unknown>
  >;
}

/**
 * The worker app's own module (three roles, TypeORM, the outbox relay) with its HTTP listener, on a PostgreSQL the
 * test stops and starts: readiness says down — naming the driver — while the database is out of reach and up again
 * after, and liveness stays up throughout (an outage makes a worker not ready, never dead).
 */
describe('the worker app: /health/live and /health/ready through a PostgreSQL outage', () => {
  let pg: OwnedPostgres | undefined;
  let app: INestApplication | undefined;
  const previousUrl = process.env['DATABASE_URL'];

  afterAll(async () => {
    await app?.close();
    await pg?.close();
    if (previousUrl === undefined) delete process.env['DATABASE_URL'];
    else process.env['DATABASE_URL'] = previousUrl;
  });

  const get = async (path: string): Promise<{ status: number; body: HealthBody }> => {
    const res = await request(app!.getHttpServer()).get(path);
    return { status: res.status, body: res.body as HealthBody };
  };

  it('answers 503 naming the driver while the database is stopped, 200 after; live stays 200', async () => {
    pg = await startOwnedPostgres('restartable');
    process.env['DATABASE_URL'] = pg.url;
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();

    const live = await get('/health/live');
    expect(live.status).toBe(200);
    expect(live.body.details['jobs']).toMatchObject({ status: 'up', worker: { status: 'up' } });
    const ready = await until('ready before the outage', async () => {
      const r = await get('/health/ready');
      return r.status === 200 ? r : undefined;
    });
    expect(ready.body.details['jobs']).toMatchObject({
      driver: { status: 'up', kind: 'postgres' },
      worker: { status: expect.stringMatching(/^(up|degraded)$/) as unknown },
      scheduler: { status: 'up' },
      relay: { status: 'up' },
    });

    await pg.stop();
    const down = await get('/health/ready');
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('error');
    expect(down.body.error['jobs']).toMatchObject({ status: 'down', failing: ['driver'] });
    expect(down.body.details['jobs']?.['driver']).toMatchObject({
      status: 'down',
      error: expect.stringMatching(/.+/) as unknown,
    });
    expect((await get('/health/live')).status).toBe(200);
    // past the stats cache's window and a few claim failures: still live
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await get('/health/live')).status).toBe(200);
    expect((await get('/health/ready')).status).toBe(503);

    await pg.start();
    const back = await until(
      'ready after the restart',
      async () => {
        const r = await get('/health/ready');
        return r.status === 200 ? r : undefined;
      },
      30_000,
    );
    expect(back.body.details['jobs']).toMatchObject({ driver: { status: 'up' } });
    expect((await get('/health/live')).status).toBe(200);
    const scrape = await request(app.getHttpServer()).get('/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.text).toMatch(/^# TYPE worker_slots_busy gauge$/m);
  }, 120_000);
});
