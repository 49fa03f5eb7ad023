import {
  backfill,
  backfillsHealth,
  memoryJobDriver,
  registeredBackfills,
  type BackfillLedger,
  type WorkerStats,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { QueueStatsCache } from '../../../jobs/src/nest/metrics/queue-stats.cache';
import { resolveJobsHealthOptions } from '../../../jobs/src/nest/health/jobs-health.options';
import { probeReady } from '../../../jobs/src/nest/health/jobs-health.probes';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresBackfillLedger } from './pg-backfill-ledger';

let db: TestDatabase;
let ledger: BackfillLedger;
beforeAll(async () => {
  db = await createTestDatabase();
  ledger = postgresBackfillLedger({ executor: db.executor });
});
afterAll(async () => {
  await db?.drop();
});

const noop = { tenant: 'none' as const, source: () => ({}) as never, handle: () => undefined };
backfill({ ...noop, name: 'health-swept' });
backfill({ ...noop, name: 'health-running' });
backfill({ ...noop, name: 'health-never' });

async function pass(name: string, n: number, finish: boolean) {
  const id = `01950000-0000-7000-8000-${String(n).padStart(12, '0')}`;
  await ledger.begin({ id, name, checksum: 'c', appVersion: null, jobId: id, runId: id, nowMs: n });
  if (finish)
    await ledger.finish(id, 'completed', { rows: 1, batches: 1, lastCursor: [1], nowMs: n }, null);
}

describe('backfills in the readiness details', () => {
  it('names the backfills declared and not swept, and those in flight, from the ledger', async () => {
    await pass('health-swept', 1, true);
    await pass('health-running', 2, false);
    expect(await backfillsHealth(ledger, registeredBackfills(), 'production')).toEqual({
      status: 'up',
      environment: 'production',
      pending: ['health-never'],
      running: ['health-running'],
    });
    expect(await backfillsHealth(undefined, registeredBackfills(), 'production')).toBeUndefined();
    expect(await backfillsHealth(ledger, [], 'production')).toBeUndefined();
  });

  it('shows them under `backfills` in probeReady, up even when the ledger cannot be read', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const stats: WorkerStats | undefined = undefined;
    const sources = {
      driver,
      clock,
      roles: new Set<'web'>(['web']),
      wakes: false,
      stats: new QueueStatsCache(driver, clock),
      worker: () => stats,
      scheduler: () => undefined,
      relay: () => undefined,
      outboxBacklog: () => undefined,
      serves: () => false,
    };
    const ready = await probeReady(
      { ...sources, backfills: () => backfillsHealth(ledger, registeredBackfills(), 'production') },
      resolveJobsHealthOptions({}),
    );
    expect(ready.failing).toEqual([]);
    expect(ready.checks['backfills']).toMatchObject({ status: 'up', pending: ['health-never'] });

    const unreadable = await probeReady(
      { ...sources, backfills: () => Promise.reject(new Error('ledger down')) },
      resolveJobsHealthOptions({}),
    );
    expect(unreadable.failing).toEqual([]);
    expect(unreadable.checks['backfills']).toEqual({ status: 'up', error: 'ledger down' });
  });
});
