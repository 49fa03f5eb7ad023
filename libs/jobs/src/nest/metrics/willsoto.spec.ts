import 'reflect-metadata';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InjectMetric, makeCounterProvider, PrometheusModule } from '@willsoto/nestjs-prometheus';
import { Counter, register } from 'prom-client';
import request from 'supertest';
import { job } from '../../declare/job';
import { t } from '../../schema';
import { frozenClock } from '../../testing/frozen-clock';
import { JobsModule } from '../jobs.module';

const report = job({
  name: 'willsoto.report',
  queue: 'reports',
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `report:${n}`,
  tenant: 'none',
  run: () => undefined,
});

/** An app metric declared the willsoto way, beside ours in the same registry. */
@Injectable()
class Orders {
  constructor(@InjectMetric('app_orders_total') readonly placed: Counter<string>) {}
}

@Module({
  imports: [JobsModule.forFeature({ jobs: [{ report }] })],
  providers: [
    Orders,
    makeCounterProvider({ name: 'app_orders_total', help: 'orders the app placed' }),
  ],
})
class ReportsModule {}

/** The `# TYPE` lines of a text exposition: name → every kind declared for it. */
const typesOf = (text: string): Map<string, string[]> => {
  const types = new Map<string, string[]>();
  for (const [, name, kind] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm))
    types.set(name!, [...(types.get(name!) ?? []), kind!]);
  return types;
};

/** The value of the sample `name{labels}` exactly as written, or undefined. */
const sampleOf = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/**
 * `@willsoto/nestjs-prometheus` serves prom-client's global registry at its own `/metrics`, with the default metrics
 * it starts collecting; `JobsModule.forRoot({ metrics: { path: false } })` puts our series in that same registry
 * (the default) and mounts no route of its own. One scrape of willsoto's route carries both, each declared once.
 */
describe('metrics beside @willsoto/nestjs-prometheus', () => {
  let app: INestApplication | undefined;
  afterAll(async () => {
    await app?.close();
    register.clear();
  });

  it("one scrape of willsoto's /metrics shows our series, its default metrics and the app's, none twice", async () => {
    const clock = frozenClock();
    const moduleRef = await Test.createTestingModule({
      imports: [
        PrometheusModule.register(),
        JobsModule.forRoot({ driver: 'memory', roles: ['web'], clock, metrics: { path: false } }),
        ReportsModule,
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();

    await report.enqueue({ n: 1 });
    await report.enqueue({ n: 2 });
    await report.enqueue({ n: 1 }); // the same key: deduplicated, counted nowhere
    app.get(Orders).placed.inc();

    const scrape = await request(app.getHttpServer()).get('/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.headers['content-type']).toContain('text/plain');
    const types = typesOf(scrape.text);
    for (const [name, kinds] of types)
      expect({ name, kinds: kinds.length }).toEqual({ name, kinds: 1 });
    // willsoto's default metrics and the app's own counter
    expect(types.get('process_cpu_user_seconds_total')).toEqual(['counter']);
    expect(types.get('nodejs_heap_size_total_bytes')).toEqual(['gauge']);
    expect(sampleOf(scrape.text, 'app_orders_total')).toBe(1);
    // ours: declared, and the enqueue counter and the depth gauge read what just happened
    expect(types.get('jobs_total')).toEqual(['counter']);
    expect(types.get('job_duration_seconds')).toEqual(['histogram']);
    expect(types.get('worker_slots_busy')).toEqual(['gauge']);
    expect(sampleOf(scrape.text, 'jobs_enqueued_total{queue="reports"}')).toBe(2);
    expect(sampleOf(scrape.text, 'queue_depth{queue="reports"}')).toBe(2);
    expect(sampleOf(scrape.text, 'queue_dead_jobs{queue="reports"}')).toBe(0);
  });
});
