import { job, t } from '@ultimat3/jobs';

/**
 * The jobs the e2e worker processes serve. Declared here, bound by `@Job` methods in `probe-worker.ts` (the child
 * process), and enqueued by the tests through these same handles. Every body writes to `probe_runs` (the probe
 * table, created by the test) on the database clock, so a test reads what ran where and when from the database.
 */
export const PROBE_TABLES = `
create table if not exists probe_runs (
  job_id uuid not null,
  kind text not null,
  n integer not null,
  pid integer not null,
  started_at timestamptz not null default clock_timestamp(),
  ended_at timestamptz
);
create table if not exists probe_release (n integer primary key);
`;

/** `attempts: 1`: a run whose body waits on its signal when the worker was started with `PROBE_DRAIN_BLOCK=1`. */
export const probeDrain = job({
  name: 'probe.drain',
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `drain:${n}`,
  tenant: 'none',
  retry: { attempts: 1 },
});

/** At most two in flight across the whole fleet. */
export const probeCapped = job({
  name: 'probe.capped',
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `capped:${n}`,
  tenant: 'none',
  concurrency: 2,
});

/** One run per account, fleet-wide; a second one while the first holds the key fails with `X_JOB_KEY_BUSY`. */
export const probeKeyed = job({
  name: 'probe.keyed',
  input: t.object({ account: t.string, n: t.number.int() }),
  idempotencyKey: ({ n }) => `keyed:${n}`,
  tenant: 'none',
  retry: { attempts: 1 },
  concurrency: { key: ({ account }) => account, limit: 1, whenBusy: 'fail' },
});

/** The namespace `JobsModule.forFeature({ jobs })` registers. */
export const probeJobs = { probeDrain, probeCapped, probeKeyed };
