/**
 * A worker PROCESS for the e2e tests, booted the way `apps/worker` boots: a real Nest application context with
 * `JobsModule.forRoot({ driver: 'postgres' })` (it migrates), the worker role, and `enableShutdownHooks` with
 * `useProcessExit` — SIGTERM drains, closes the pool, exits 0. Run from source through
 * `libs/jobs-pg/test/swc-register.js`. Configured by env: DATABASE_URL, PROBE_VISIBILITY_MS (default 30 000),
 * PROBE_CONCURRENCY (default 4), PROBE_DRAIN_BLOCK ("1": `probeDrain` waits on its signal). Prints `READY <pid>` once
 * bootstrapped.
 */
import 'reflect-metadata';
import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Job, JobsModule, type JobRunArgs } from '@ultimat3/jobs';
import { Pool } from 'pg';
import { probeCapped, probeDrain, probeJobs, probeKeyed } from './probe-jobs';

/** Resolves when `signal` aborts, rejecting with its reason. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The probe table's writer: its own small pool, ended at shutdown after the worker drained. */
@Injectable()
class Probe implements OnApplicationShutdown {
  readonly pool = new Pool({ connectionString: process.env['DATABASE_URL'], max: 4 });

  async started(jobId: string, kind: string, n: number): Promise<void> {
    await this.pool.query('insert into probe_runs (job_id, kind, n, pid) values ($1, $2, $3, $4)', [
      jobId,
      kind,
      n,
      process.pid,
    ]);
  }

  async ended(jobId: string): Promise<void> {
    await this.pool.query(
      `update probe_runs set ended_at = clock_timestamp()
       where job_id = $1 and pid = $2 and ended_at is null`,
      [jobId, process.pid],
    );
  }

  async released(n: number): Promise<boolean> {
    const { rowCount } = await this.pool.query('select 1 from probe_release where n = $1', [n]);
    return (rowCount ?? 0) > 0;
  }

  onApplicationShutdown(): Promise<void> {
    return this.pool.end();
  }
}

@Injectable()
class ProbeJobs {
  constructor(private readonly probe: Probe) {}

  @Job(probeDrain)
  async drain({ input, jobId, signal }: JobRunArgs<typeof probeDrain>): Promise<void> {
    await this.probe.started(jobId, 'drain', input.n);
    if (process.env['PROBE_DRAIN_BLOCK'] === '1') await aborted(signal);
    await this.probe.ended(jobId);
  }

  @Job(probeCapped)
  async capped({ input, jobId }: JobRunArgs<typeof probeCapped>): Promise<void> {
    await this.probe.started(jobId, 'capped', input.n);
    await pause(5);
    await this.probe.ended(jobId);
  }

  @Job(probeKeyed)
  async keyed({ input, jobId, signal }: JobRunArgs<typeof probeKeyed>): Promise<void> {
    await this.probe.started(jobId, 'keyed', input.n);
    while (!(await this.probe.released(input.n))) {
      if (signal.aborted) throw signal.reason;
      await pause(20);
    }
    await this.probe.ended(jobId);
  }
}

@Module({
  imports: [
    JobsModule.forRoot({
      driver: 'postgres',
      postgres: { poolSize: 4 },
      roles: ['worker'],
      worker: {
        concurrency: Number(process.env['PROBE_CONCURRENCY'] ?? 4),
        visibilityTimeoutMs: Number(process.env['PROBE_VISIBILITY_MS'] ?? 30_000),
        pollIntervalMs: 20,
        idlePollMaxMs: 200,
      },
      shutdown: { deadlineMs: 10_000 },
    }),
    JobsModule.forFeature({ jobs: [probeJobs] }),
  ],
  providers: [Probe, ProbeJobs],
})
class ProbeWorkerModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ProbeWorkerModule, {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  process.stdout.write(`READY ${process.pid}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`probe worker failed to start: ${String(error)}\n`);
  process.exit(1);
});
