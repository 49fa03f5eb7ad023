/**
 * One worker process of the rolling-deploy spec (`rolling-deploy.spec.ts`), run from source through
 * `swc-register.js` with an IPC channel. argv: <database url> <build: old | new>.
 *
 * Both builds serve queue `deploy`: the old one knows only `deploy.existing`, the new one `deploy.added` too. Each run
 * writes one row to `deploy_runs` (job, name, build, attempt). The driver is wrapped to record the name of every row a
 * claim hands this process. Sends `{ type: 'ready' }` once serving; on SIGTERM it drains, sends
 * `{ type: 'stopped', stats, claimedNames, events }` (the worker's stats, every name it was handed, the events it
 * logged at warn or error) and exits.
 */
import { Pool } from 'pg';
import { job, JobRegistry, jobWorker, t, type JobDriver, type JobsLogger } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresJobDriver } from '@ultimat3/jobs-pg';
import { serveWorker } from './worker-process';

const [url, build] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 6 });
pool.on('error', () => undefined);
const executor = pgPoolExecutor(pool);

const declare = (name: string) =>
  job({
    name,
    queue: 'deploy',
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: async ({ jobId, attempt }) => {
      await pool.query(
        'insert into deploy_runs (job_id, name, build, attempt) values ($1, $2, $3, $4)',
        [jobId, name, build, attempt],
      );
    },
  });

async function main(): Promise<void> {
  const registry = new JobRegistry();
  registry.register(declare('deploy.existing'));
  if (build === 'new') registry.register(declare('deploy.added'));

  const inner = postgresJobDriver({ executor });
  const claimedNames = new Set<string>();
  const driver: JobDriver = {
    ...inner,
    claim: async (options) => {
      const rows = await inner.claim(options);
      for (const row of rows) claimedNames.add(row.name);
      return rows;
    },
    claimRescuing: async (options, rescue) => {
      const pass = await inner.claimRescuing(options, rescue);
      for (const row of pass.claimed) claimedNames.add(row.name);
      return pass;
    },
  };
  const events: { level: string; event: string; fields: unknown }[] = [];
  const logger: JobsLogger = {
    log: (level, event, fields) => {
      if (level === 'warn' || level === 'error') events.push({ level, event, fields });
    },
  };
  const worker = jobWorker({
    driver,
    registry,
    logger,
    concurrency: 4,
    workerId: `deploy-${build}`,
  });
  await serveWorker({
    url,
    pool,
    executor,
    worker,
    stopped: () => ({ stats: worker.stats(), claimedNames: [...claimedNames].sort(), events }),
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
