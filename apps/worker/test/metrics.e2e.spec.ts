import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { job, JobsModule, t } from '@ultimat3/jobs';
import { collectDefaultMetrics, Registry } from 'prom-client';
import request from 'supertest';
import { pgJobsSpec } from '../../../libs/jobs-pg/test/pg-jobs-spec';
import { until } from './support/worker-process';

/**
 * Opened once the test's enqueues have landed. Until then every `ok` run stays running, so the repeated key meets a
 * live row and is deduplicated: a run that already finished frees its key, and the repeat would land a fourth row.
 */
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});

const ok = job({
  name: 'metrics.ok',
  queue: 'metrics-ok',
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `ok:${n}`,
  tenant: 'none',
  run: () => gate,
});

const bad = job({
  name: 'metrics.bad',
  queue: 'metrics-bad',
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `bad:${n}`,
  tenant: 'none',
  retry: { attempts: 2, delay: 1, jitter: false },
  run: () => {
    throw new Error('always');
  },
});

/** A sample of the text exposition: `name{labels} value`. */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the Prometheus text format (0.0.4): `# TYPE` lines and samples; label values here hold no `"` or `,`. */
function parseExposition(text: string): { types: Map<string, string[]>; samples: Sample[] } {
  const types = new Map<string, string[]>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, [...(types.get(type[1]!) ?? []), type[2]!]);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels = Object.fromEntries(
      (sample[2] ?? '')
        .split(',')
        .filter((pair) => pair !== '')
        .map((pair) => /^(\w+)="(.*)"$/.exec(pair)!.slice(1, 3) as [string, string]),
    );
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

const value = (samples: readonly Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;

@Module({ imports: [JobsModule.forFeature({ jobs: [{ ok, bad }] })] })
class MetricsJobsModule {}

/**
 * An app with `JobsModule.forRoot({ metrics })` on PostgreSQL, its series in a registry the app shares (one that
 * already holds prom-client's default metrics, as `@willsoto/nestjs-prometheus` leaves it): after its worker ran jobs
 * that complete, retry and dead-letter, `/metrics` over HTTP shows every series with the values the rows hold.
 */
describe('GET /metrics: the jobs series in prom-client, checked against the rows', () => {
  let app: INestApplication | undefined;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const db = pgJobsSpec({
    migrate: false,
    beforeDrop: async () => {
      await app?.close();
    },
  });

  const boot = async (): Promise<INestApplication> => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: 'postgres',
          postgres: { url: db.url },
          roles: ['web', 'worker'],
          worker: { pollIntervalMs: 20, idlePollMaxMs: 200 },
          metrics: { registry },
        }),
        MetricsJobsModule,
      ],
    }).compile();
    const nest = moduleRef.createNestApplication({ logger: false });
    await nest.init();
    return nest;
  };

  const rows = async (): Promise<Map<string, number>> => {
    const { rows } = await db.pool.query<{ queue: string; state: string; n: string }>(
      'select queue, state, count(*)::text as n from x_jobs group by queue, state',
    );
    return new Map(rows.map((r) => [`${r.queue}|${r.state}`, Number(r.n)]));
  };

  it('counts runs, retries, dead letters, enqueues and durations, and reads the gauges from the rows', async () => {
    app = await boot();
    for (let n = 0; n < 3; n++) await ok.enqueue({ n });
    // the same key while its run is live: deduplicated, lands no row
    expect(await ok.enqueue({ n: 0 })).toMatchObject({ deduped: true });
    for (let n = 0; n < 2; n++) await bad.enqueue({ n });
    openGate();
    await until('the runs to settle', async () => {
      const r = await rows();
      return r.get('metrics-ok|done') === 3 && r.get('metrics-bad|dead') === 2 ? r : undefined;
    });
    // a run is counted once its settle has landed, a moment after the row changed: scrape until the last one is in
    const { res, types, samples } = await until('the last settles to be counted', async () => {
      const scraped = await request(app!.getHttpServer()).get('/metrics');
      const parsed = parseExposition(scraped.text);
      const dead = value(parsed.samples, 'jobs_total', { queue: 'metrics-bad', outcome: 'dead' });
      const done = value(parsed.samples, 'jobs_total', { queue: 'metrics-ok', outcome: 'ok' });
      return dead === 2 && done === 3 ? { res: scraped, ...parsed } : undefined;
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const r = await rows();

    // one TYPE per name: our series beside the registry's default ones, none registered twice
    for (const [name, kinds] of types)
      expect({ name, kinds: kinds.length }).toEqual({ name, kinds: 1 });
    expect(types.get('process_cpu_user_seconds_total')).toEqual(['counter']);
    expect(types.get('jobs_total')).toEqual(['counter']);
    expect(types.get('job_duration_seconds')).toEqual(['histogram']);
    expect(types.get('queue_depth')).toEqual(['gauge']);

    expect(value(samples, 'jobs_total', { queue: 'metrics-ok', outcome: 'ok' })).toBe(
      r.get('metrics-ok|done'),
    );
    // each bad job failed once (retried) and then died
    expect(value(samples, 'jobs_total', { queue: 'metrics-bad', outcome: 'failed' })).toBe(2);
    expect(value(samples, 'jobs_total', { queue: 'metrics-bad', outcome: 'dead' })).toBe(
      r.get('metrics-bad|dead'),
    );
    expect(value(samples, 'jobs_enqueued_total', { queue: 'metrics-ok' })).toBe(3);
    expect(value(samples, 'jobs_enqueued_total', { queue: 'metrics-bad' })).toBe(2);
    expect(value(samples, 'job_duration_seconds_count', { queue: 'metrics-ok' })).toBe(3);
    expect(value(samples, 'job_duration_seconds_count', { queue: 'metrics-bad' })).toBe(4);
    expect(value(samples, 'job_duration_seconds_bucket', { queue: 'metrics-ok', le: '+Inf' })).toBe(
      3,
    );
    expect(value(samples, 'queue_dead_jobs', { queue: 'metrics-bad' })).toBe(
      r.get('metrics-bad|dead'),
    );
    expect(value(samples, 'queue_dead_jobs', { queue: 'metrics-ok' })).toBe(0);
    expect(value(samples, 'queue_depth', { queue: 'metrics-ok' })).toBe(
      r.get('metrics-ok|ready') ?? 0,
    );
    expect(value(samples, 'queue_oldest_ready_seconds', { queue: 'metrics-ok' })).toBe(0);
    expect(value(samples, 'worker_slots_busy')).toBe(0);
    expect(types.get('job_leases_lost_total')).toEqual(['counter']);
    expect(value(samples, 'job_leases_lost_total')).toBeUndefined(); // no lease was lost: no sample yet
  });

  it('a second app on the same registry replaces the series instead of failing on a duplicate name', async () => {
    await app?.close();
    app = await boot();
    const { types, samples } = parseExposition(
      (await request(app.getHttpServer()).get('/metrics')).text,
    );
    for (const [name, kinds] of types)
      expect({ name, kinds: kinds.length }).toEqual({ name, kinds: 1 });
    // the counters start again with the process that owns them; the gauges still read the rows
    expect(value(samples, 'jobs_total', { queue: 'metrics-ok', outcome: 'ok' })).toBeUndefined();
    expect(value(samples, 'queue_dead_jobs', { queue: 'metrics-bad' })).toBe(2);
  });
});
