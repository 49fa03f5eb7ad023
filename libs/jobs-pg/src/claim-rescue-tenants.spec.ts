import { frozenClock } from '@ultimat3/jobs/testing';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';

const START = Date.UTC(2026, 0, 1);
const VT = 1_000;

/**
 * A rescuing claim (`claimRescuing`: `SQL_CLAIM` with its rescue arms on) re-takes a lapsed lease only for a tenant the
 * worker may still run: a tenant at the worker's cap (`excludeTenants`) is skipped for a lapsed row as for a waiting
 * one, or a dead worker's runs would push a tenant past its cap. The row is left running, neither re-taken nor buried,
 * and the next claim that does not exclude its tenant takes it, as the memory driver does.
 */
describe('a rescuing claim and excluded tenants (PostgreSQL, driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('re-takes no lapsed lease of an excluded tenant, and takes it once the tenant is not excluded', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const full = request({ runAt: START, tenantId: 'tenant-full', maxAttempts: 3 });
    const free = request({ runAt: START, tenantId: null, maxAttempts: 3 });
    await driver.enqueueMany([full, free]);
    const slots = [{ queue: 'pg-q', limit: 10 }];
    const taken = await driver.claim({ workerId: 'dead', slots, visibilityTimeoutMs: VT });
    expect(taken).toHaveLength(2);
    await clock.advance(VT * 2);

    const capped = await driver.claimRescuing!(
      { workerId: 'w', slots, visibilityTimeoutMs: VT, excludeTenants: ['tenant-full'] },
      {},
    );
    expect(capped.claimed.map((r) => [r.id, r.attempt])).toEqual([[free.id, 2]]);
    expect(capped.rescued.buried).toEqual([]);
    expect(await driver.get(full.id)).toMatchObject({ state: 'running', workerId: 'dead' });

    const freed = await driver.claimRescuing!(
      { workerId: 'w', slots, visibilityTimeoutMs: VT },
      {},
    );
    expect(freed.claimed.map((r) => [r.id, r.attempt, r.workerId])).toEqual([[full.id, 2, 'w']]);
  });
});
