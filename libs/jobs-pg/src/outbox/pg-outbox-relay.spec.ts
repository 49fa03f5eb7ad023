import {
  claimOf,
  outboxRelay,
  recordingLogger,
  type JobDriver,
  type OutboxRelayOptions,
} from '@ultimat3/jobs';
import { frozenClock, outboxRequest, type FrozenClock } from '@ultimat3/jobs/testing';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgClientTx, stageInTx } from '../../test/outbox-tx';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';

const LEASE = 30_000;

const db = pgJobsSpec({ poolSize: 30 });
beforeEach(async () => {
  await db.pool.query('delete from x_outbox; delete from x_job_steps; delete from x_jobs;');
});

function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const jobRows = async (id: string): Promise<{ state: string }[]> =>
  (await db.pool.query<{ state: string }>('select state from x_jobs where id = $1', [id])).rows;

describe('outboxRelay on PostgreSQL', () => {
  let clock: FrozenClock;
  let store: ReturnType<typeof postgresOutboxStore>;
  let driver: JobDriver;
  const relay = (overrides: Partial<OutboxRelayOptions> = {}) =>
    outboxRelay({ store, driver, clock, claimLeaseMs: LEASE, ...overrides });

  beforeEach(() => {
    clock = frozenClock(Date.now());
    store = postgresOutboxStore({ executor: db.executor, txExecutor: pgClientTx, clock });
    driver = postgresJobDriver({ executor: db.executor });
  });

  it.each(['live', 'finished'])(
    'republishes after a relay died between publish and markPublished: one job row (%s)',
    async (when) => {
      const request = outboxRequest({ runAt: Date.now() });
      await stageInTx(db.pool, store, [request]);
      const killed = relay({
        faults: {
          afterPublish: () => {
            throw new Error('SIGKILL between publish and markPublished');
          },
        },
      });
      await expect(killed.runOnce()).rejects.toThrow('SIGKILL');
      expect(await jobRows(request.id)).toEqual([{ state: 'ready' }]);
      if (when === 'finished') {
        const [claimed] = await driver.claim({
          workerId: 'w',
          slots: [{ queue: request.queue, limit: 1 }],
          visibilityTimeoutMs: 10_000,
        });
        expect(await driver.ack(request.id, claimOf(claimed!))).toBe(true);
      }

      const next = relay();
      expect(await next.runOnce()).toMatchObject({ claimed: 0 }); // still leased to the dead relay
      await clock.advance(LEASE);
      expect(await next.runOnce()).toMatchObject({ claimed: 1, published: 1, deduped: 1 });
      expect(await jobRows(request.id)).toEqual([
        { state: when === 'finished' ? 'done' : 'ready' },
      ]);
      expect(await store.retained()).toBe(0);
    },
  );

  it('leaves a relay that stalled past its lease unable to release or retire what a newer one holds', async () => {
    const [r1, r2] = [outboxRequest(), outboxRequest()];
    await stageInTx(db.pool, store, [r1!, r2!]);
    const logger = recordingLogger();
    const stalled = gate();
    const failing: JobDriver = {
      ...driver,
      enqueue: (request) =>
        request.id === r2!.id ? Promise.reject(new Error('blip')) : driver.enqueue(request),
    };
    const a = relay({
      claimant: 'relay-a',
      driver: failing,
      logger,
      faults: { afterPublish: () => stalled.promise },
    });
    const aPass = a.runOnce(); // publishes r1, fails r2, then stalls before retiring / releasing
    await waitFor(async () => (await jobRows(r1!.id)).length === 1);
    await clock.advance(LEASE);

    const holding = gate();
    const b = relay({ claimant: 'relay-b', faults: { afterPublish: () => holding.promise } });
    const bPass = b.runOnce(); // re-claims r1 and r2, publishes both, holds before retiring
    await waitFor(async () => (await jobRows(r2!.id)).length === 1);

    stalled.open();
    expect(await aPass).toMatchObject({ published: 1, released: 1 });
    expect(logger.named('jobs.outbox.lease-lost')).toHaveLength(1);
    const { rows } = await db.pool.query(
      'select id, claimed_by, published_at, attempts, last_error from x_outbox order by staged_at',
    );
    expect(rows).toEqual([
      { id: r1!.id, claimed_by: 'relay-b', published_at: null, attempts: 0, last_error: null },
      { id: r2!.id, claimed_by: 'relay-b', published_at: null, attempts: 0, last_error: null },
    ]);
    expect(await relay({ claimant: 'relay-c' }).runOnce()).toMatchObject({ claimed: 0 });

    holding.open();
    expect(await bPass).toMatchObject({ claimed: 2, published: 2 });
    expect(await store.retained()).toBe(0);
    expect((await jobRows(r1!.id)).length + (await jobRows(r2!.id)).length).toBe(2);
  });
});

/** Polls `check` every 5 ms until it holds (at most 5 s). */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
