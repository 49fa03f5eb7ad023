import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PoolClient } from 'pg';
import { outboxRequest } from '@ultimat3/jobs/testing';
import { pgPoolExecutor } from '../../executor/pg-pool-executor';
import { pgJobsSpec, type SpecDatabase } from '../../../test/pg-jobs-spec';
import { postgresOutboxStore } from '../pg-outbox-store';
import { LATENCY_JOB, LATENCY_QUEUE } from './latency-job';

/** Commits per probe, and the pauses between them (ms): a steady trickle, so the relay is sometimes idle. */
const GAPS = [
  30, 170, 90, 260, 50, 210, 120, 20, 300, 80, 150, 40, 240, 110, 60, 190, 70, 280, 130, 100,
];

interface Figures {
  readonly mode: 'poll' | 'listen';
  readonly commits: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Commits `GAPS.length` transactions, one staged job each, in THIS process, and times each from the return of its
 * COMMIT to the start of its job in a child process running a relay and a worker (`latency-child.ts`).
 */
async function probe(db: SpecDatabase, mode: 'poll' | 'listen'): Promise<Figures> {
  const child = spawn(
    process.execPath,
    ['-r', join(__dirname, '../../../test/swc-register.js'), join(__dirname, 'latency-child.ts')],
    {
      env: { ...process.env, OUTBOX_LATENCY_DB: db.url, OUTBOX_LATENCY_WAKE: mode },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const started = new Map<string, number>();
  let ready: () => void = () => undefined;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') return ready();
    const { id, startedAt } = JSON.parse(line) as { id: string; startedAt: number };
    started.set(id, startedAt);
  });
  const store = postgresOutboxStore({
    executor: db.executor,
    txExecutor: (tx) => pgPoolExecutor(tx as PoolClient),
  });
  const client = await db.pool.connect();
  try {
    await Promise.race([isReady, exited.then(() => Promise.reject(new Error(stderr)))]);
    const committed = new Map<string, number>();
    for (const [n, gap] of GAPS.entries()) {
      const request = outboxRequest({ name: LATENCY_JOB, queue: LATENCY_QUEUE, input: { n } });
      await client.query('begin');
      await store.stage({ ...request, idempotencyKey: `ping:${n}`, runAt: Date.now() }, client);
      await client.query('commit');
      committed.set(request.id, Date.now());
      await pause(gap);
    }
    for (let waited = 0; started.size < committed.size && waited < 15_000; waited += 20) {
      await pause(20);
    }
    const latencies = [...committed].map(([id, at]) => (started.get(id) ?? Infinity) - at);
    latencies.sort((a, b) => a - b);
    return {
      mode,
      commits: latencies.length,
      medianMs: latencies[Math.floor(latencies.length / 2)] ?? Infinity,
      maxMs: latencies[latencies.length - 1] ?? Infinity,
    };
  } finally {
    client.release();
    child.stdin.end();
    await exited;
  }
}

describe('outbox latency: COMMIT in one process to job start in another', () => {
  const db = pgJobsSpec();

  it('stays within generous bounds, polling (200 ms, idle backoff to 2 s) and woken (x_outbox_wake)', async () => {
    const polled = await probe(db, 'poll');
    await db.pool.query('delete from x_outbox; delete from x_jobs;');
    const woken = await probe(db, 'listen');
    if (process.env['OUTBOX_LATENCY_OUT']) {
      writeFileSync(process.env['OUTBOX_LATENCY_OUT'], JSON.stringify([polled, woken], null, 2));
    }
    // bounded by the relay's idle wait (≤ idlePollMaxMs 2 s) plus a publish and a woken claim
    expect(polled).toMatchObject({ commits: GAPS.length });
    expect(polled.medianMs).toBeLessThan(2_500);
    expect(polled.maxMs).toBeLessThan(5_000);
    // a wake on commit: no poll wait at all
    expect(woken.medianMs).toBeLessThan(500);
    expect(woken.maxMs).toBeLessThan(2_500);
  }, 60_000);
});
