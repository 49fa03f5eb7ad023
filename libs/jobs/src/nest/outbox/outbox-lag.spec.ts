import 'reflect-metadata';
import { Global, Module, type INestApplication, type ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Registry } from 'prom-client';
import request from 'supertest';
import { memoryOutboxStore } from '../../outbox/memory-outbox-store';
import { outboxRequest } from '../../outbox/testing/outbox-store.conformance';
import { frozenClock } from '../../testing/frozen-clock';
import { JobsHealthModule } from '../health/jobs-health.module';
import { JobsModule } from '../jobs.module';
import { OutboxModule } from './outbox.module';

const DATA_SOURCE = 'outbox-lag.data-source';

/** The DataSource token OutboxModule asks for; a memory store never reads it. */
@Global()
@Module({ providers: [{ provide: DATA_SOURCE, useValue: {} }], exports: [DATA_SOURCE] })
class DataSourceStandIn {}

/** The `outbox_lag_seconds` sample of a scrape, or undefined when the gauge has none. */
const lagOf = (text: string): number | undefined => {
  const line = /^outbox_lag_seconds (\S+)$/m.exec(text);
  return line ? Number(line[1]) : undefined;
};

/**
 * A web process with the outbox (memory store) and no relay, on a driven clock: `/metrics` shows the age of the
 * oldest staged row, and `/health/ready` turns 503 naming `outbox` once it is past `outbox.maxLagMs`.
 */
describe('outbox_lag_seconds and the outbox health check, over HTTP', () => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const boot = async (imports: ModuleMetadata['imports']): Promise<INestApplication> => {
    const moduleRef = await Test.createTestingModule({ imports }).compile();
    const nest = moduleRef.createNestApplication({ logger: false });
    await nest.init();
    return nest;
  };

  it('scrapes the lag of a staged row and answers 503 naming outbox past the bound', async () => {
    const clock = frozenClock();
    const store = memoryOutboxStore({ clock });
    const registry = new Registry();
    app = await boot([
      DataSourceStandIn,
      JobsModule.forRoot({ driver: 'memory', roles: ['web'], clock, metrics: { registry } }),
      OutboxModule.forRoot({ dataSource: DATA_SOURCE, store, interceptAll: false }),
      JobsHealthModule.forRoot({ path: 'health', outbox: { maxLagMs: 60_000 } }),
    ]);
    const http = () => request(app!.getHttpServer());

    expect(lagOf((await http().get('/metrics')).text)).toBe(0);
    await store.stage(outboxRequest());
    await clock.advance(45_500);
    await store.stage(outboxRequest());
    const scrape = await http().get('/metrics');
    expect(scrape.text).toMatch(/^# TYPE outbox_lag_seconds gauge$/m);
    expect(lagOf(scrape.text)).toBe(45.5);
    const ready = await http().get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details.jobs.outbox).toEqual({ status: 'up', backlog: 2, lagMs: 45_500 });

    await clock.advance(14_501);
    const down = await http().get('/health/ready');
    expect(down.status).toBe(503);
    expect(down.body.error.jobs).toMatchObject({
      status: 'down',
      failing: ['outbox'],
      outbox: { status: 'down', backlog: 2, lagMs: 60_001 },
    });
    expect(lagOf((await http().get('/metrics')).text)).toBe(60.001);
    expect((await http().get('/health/live')).status).toBe(200);
  });

  it('without OutboxModule the gauge has no sample and a default health check adds no outbox check', async () => {
    const registry = new Registry();
    app = await boot([
      JobsModule.forRoot({ driver: 'memory', roles: ['web'], metrics: { registry } }),
      JobsHealthModule.forRoot({ path: 'health' }),
    ]);
    const scrape = await request(app.getHttpServer()).get('/metrics');
    expect(scrape.text).toMatch(/^# TYPE outbox_lag_seconds gauge$/m);
    expect(lagOf(scrape.text)).toBeUndefined();
    const ready = await request(app.getHttpServer()).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details.jobs.outbox).toBeUndefined();
  });
});
