import { Client } from 'pg';
import { outboxRelay, type OutboxRelay } from '@ultimat3/jobs';
import { frozenClock, outboxRequest, type FrozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../../test/until';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresJobDriver } from '../driver/pg-driver';
import type { PgExecutor } from '../executor/pg-executor';
import { startQueueWake, type QueueWake } from '../wake/queue-wake';
import { postgresOutboxStore } from './pg-outbox-store';
import { OUTBOX_WAKE_CHANNEL } from './wake-channel';

const MINUTE = 60_000;

/**
 * The relay's idle cost, counted in statements on a real PostgreSQL: the outbox relay makes 12 claims per idle
 * minute with a proven wake (the LISTEN on `x_outbox_wake`, probed through the pool), 30 without. The relay runs on a
 * frozen clock driven a second at a time; each step waits for the statement in flight before the next.
 */
describe('outbox relay idle statements on PostgreSQL', () => {
  let relay: OutboxRelay | undefined;
  let wake: QueueWake | undefined;

  const db = pgJobsSpec();
  afterEach(async () => {
    await wake?.stop();
    await relay?.stop();
    wake = undefined;
    relay = undefined;
  });

  /** The pool executor, counting every statement sent through it and how many are on the wire. */
  function countingExecutor(): { executor: PgExecutor; sent: () => number; busy: () => boolean } {
    let sent = 0;
    let pending = 0;
    return {
      executor: {
        async query(text, values) {
          sent++;
          pending++;
          try {
            return await db.executor.query(text, values);
          } finally {
            pending--;
          }
        },
      },
      sent: () => sent,
      busy: () => pending > 0,
    };
  }

  /** Moves the relay's clock `ms` forward a second at a time, letting each pass reach the database and re-arm. */
  async function drive(clock: FrozenClock, busy: () => boolean, ms: number): Promise<void> {
    for (let moved = 0; moved < ms; moved += 1_000) {
      await clock.advance(1_000);
      await until(() => !busy() && clock.pending() > 0);
    }
  }

  function start(): { clock: FrozenClock; counted: ReturnType<typeof countingExecutor> } {
    const clock = frozenClock();
    const counted = countingExecutor();
    relay = outboxRelay({
      store: postgresOutboxStore({ executor: counted.executor }),
      driver: postgresJobDriver({ executor: db.executor }),
      clock,
    });
    return { clock, counted };
  }

  it('12 statements per idle minute with a proven wake, and a commit elsewhere is published at once', async () => {
    const { clock, counted } = start();
    const r = relay as OutboxRelay;
    wake = startQueueWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      channel: OUTBOX_WAKE_CHANNEL,
      onWake: () => r.wake(),
      onLive: (live) => r.setWakeLive(live),
    });
    expect(await wake.ready()).toBe(true);
    r.start();
    await drive(clock, counted.busy, 30_000);
    const before = counted.sent();
    await drive(clock, counted.busy, MINUTE);
    expect(counted.sent() - before).toBe(12);

    // The poll is only the guarantee: a row another connection commits is published without the clock moving.
    const at = clock.now();
    const request = outboxRequest();
    await postgresOutboxStore({ executor: db.executor }).stage(request);
    await until(() => r.stats().published === 1);
    expect(clock.now()).toBe(at);
    const { rows } = await db.pool.query('select 1 from x_jobs where id = $1', [request.id]);
    expect(rows).toHaveLength(1);
  });

  it('30 statements per idle minute without one', async () => {
    const { clock, counted } = start();
    (relay as OutboxRelay).start();
    await drive(clock, counted.busy, 30_000);
    const before = counted.sent();
    await drive(clock, counted.busy, MINUTE);
    expect(counted.sent() - before).toBe(30);
  });
});
