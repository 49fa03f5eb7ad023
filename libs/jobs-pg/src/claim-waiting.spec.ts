import { errorCodeOf, uuidv7, type ClaimOptions, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec, type SpecDatabase } from '../test/pg-jobs-spec';
import type { PgExecutor } from './executor/pg-executor';
import { postgresJobDriver } from './driver/pg-driver';
import { LOW_WATER_REFRESH_MS } from './driver/pg-low-water';
import { SQL_CLAIM } from './sql/claim.sql';
import { SQL_CLAIM_WAITING } from './sql/claim-waiting.sql';
import { SQL_CLAIM_WOKEN } from './sql/claim-woken.sql';

const VT = 30_000;
const STATEMENT_NAMES = new Map([
  [SQL_CLAIM, 'claim'],
  [SQL_CLAIM_WAITING, 'waiting'],
  [SQL_CLAIM_WOKEN, 'woken'],
]);
const START = Date.UTC(2026, 0, 1);

/**
 * A busy worker's claim (`SQL_CLAIM_WAITING`; of one slot, `SQL_CLAIM_WOKEN`) and the claim that rescues, reports
 * and carries beats (`SQL_CLAIM`): which one a claim runs, that they hand out the very same rows, and the registry beat
 * a claim carries.
 */
describe('the waiting-only claim and the carried registry beat (PostgreSQL, driven clock)', () => {
  const a = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const b = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  /** `db`'s executor, recording the text of every statement sent through it. */
  function recording(db: SpecDatabase): { executor: PgExecutor; texts: string[] } {
    const texts: string[] = [];
    return {
      texts,
      executor: {
        query(text, values) {
          texts.push(text);
          return db.executor.query(text, values);
        },
      },
    };
  }

  const busy = (over: Partial<ClaimOptions> = {}): ClaimOptions => ({
    workerId: 'w',
    slots: [{ queue: 'pg-q', limit: 2, ahead: 3, names: ['pg.job'] }],
    visibilityTimeoutMs: VT,
    ...over,
  });

  it('a claim that neither rescues (claimRescuing), reports, merges names nor carries a beat runs SQL_CLAIM_WAITING (one slot: SQL_CLAIM_WOKEN)', async () => {
    const r = recording(a);
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: r.executor, clock });
    const beat = {
      id: 'w',
      host: 'h',
      pid: 1,
      startedAt: START,
      slots: { 'pg-q': 2 },
      inFlight: [],
    };
    const q = { queue: 'pg-q', limit: 1 };
    const twoQueues = busy({
      slots: [
        { ...q, names: ['pg.job'] },
        { queue: 'pg-r', limit: 1, names: ['pg.job'] },
      ],
    });
    // 'rescue': the same busy claim through claimRescuing, which rescues in SQL_CLAIM
    const shapes: [string, ClaimOptions | 'stale' | 'rescue'][] = [
      // the driver's first claim of the queue computes its low water (a report), and the next within
      // LOW_WATER_REFRESH_MS starts its scan there
      ['unknown low water', busy()],
      ['busy', busy()],
      ['one slot', busy({ slots: [{ ...q, names: ['pg.job'] }] })],
      // pg-r's low water unknown, then known: the busy claim of two queues
      ['two queues', twoQueues],
      ['two queues known', twoQueues],
      ['rescue', 'rescue'],
      ['two names', busy({ slots: [{ ...q, names: ['pg.job', 'pg.other'] }] })],
      ['every name', busy({ slots: [q] })],
      [
        'a queue twice',
        busy({
          slots: [
            { ...q, names: ['pg.job'] },
            { ...q, names: ['pg.other'] },
          ],
        }),
      ],
      ['a beat', busy({ presence: { beat, visibilityTimeoutMs: VT } })],
      ['stale low water', 'stale'],
      ['refreshed', busy()],
    ];
    const ran: string[] = [];
    for (const [shape, options] of shapes) {
      r.texts.length = 0;
      if (options === 'stale') await clock.advance(LOW_WATER_REFRESH_MS);
      if (options === 'rescue') await driver.claimRescuing(busy(), {});
      else await driver.claim(options === 'stale' ? busy() : options);
      ran.push(`${shape}: ${r.texts.map((t) => STATEMENT_NAMES.get(t) ?? '?').join()}`);
    }
    expect(ran).toEqual([
      'unknown low water: claim',
      'busy: woken',
      'one slot: woken',
      'two queues: claim',
      'two queues known: waiting',
      'rescue: claim',
      'two names: claim',
      'every name: claim',
      'a queue twice: claim',
      'a beat: claim',
      'stale low water: claim',
      'refreshed: woken',
    ]);
  });

  it('hands out exactly the rows SQL_CLAIM hands out, in the same order, claim after claim', async () => {
    const clock = frozenClock(START);
    const full = postgresJobDriver({ executor: a.executor, clock });
    const waiting = postgresJobDriver({ executor: b.executor, clock });
    const row = (n: number, over: Partial<EnqueueRequest>): EnqueueRequest =>
      request({ id: uuidv7(START - 100_000 + n), runAt: START - 50_000 + n * 7, ...over });
    const rows = [
      ...Array.from({ length: 12 }, (_, n) => row(n, { priority: n % 3 })),
      ...Array.from({ length: 6 }, (_, n) => row(20 + n, { maxAttempts: 1 })), // their claim is their final attempt
      row(30, { priority: -1, tenantId: 'capped' }),
      row(31, { tenantId: 'free' }),
      row(32, { runAt: START + 1 }), // not due
      row(33, { runAt: START - 70_000 }), // below the low water: the hint hides it
      row(34, { name: 'pg.other' }),
      row(35, { queue: 'pg-r' }),
      row(36, { queue: 'pg-paused' }),
      ...Array.from({ length: 4 }, (_, n) =>
        row(40 + n, { queue: 'pg-r', maxAttempts: 1 + (n % 2) }),
      ),
    ];
    await Promise.all([full.enqueueMany(rows), waiting.enqueueMany(rows)]);
    await Promise.all([
      full.introspect?.pauseQueue('pg-paused'),
      waiting.introspect?.pauseQueue('pg-paused'),
    ]);
    // both drivers start their scans at the same bounds, as if a claim sent after the enqueues had computed them
    const low = START - 60_000;
    for (const driver of [full, waiting]) {
      driver.lowWater.learn('pg-q', low, START + 1);
      driver.lowWater.learn('pg-r', START - 1_000_000, START + 1);
      driver.lowWater.learn('pg-paused', low, START + 1);
    }
    const options = (limit: number, ahead: number): ClaimOptions =>
      busy({
        slots: [
          { queue: 'pg-q', limit, ahead, names: ['pg.job'] },
          { queue: 'pg-r', limit: 1, ahead, names: ['pg.job'] },
          { queue: 'pg-paused', limit: 5, names: ['pg.job'] },
        ],
        excludeTenants: ['capped'],
      });
    const shape = (claimed: Awaited<ReturnType<typeof full.claim>>): unknown[] =>
      claimed.map((c) => [
        c.id,
        c.queue,
        c.state,
        c.attempt,
        c.workerId,
        c.leaseExpiresAt,
        c.runAt,
        c.input,
      ]);
    let taken = 0;
    for (const [limit, ahead] of [
      [1, 0],
      [2, 3],
      [0, 4],
      [3, 1],
      [5, 10],
      [5, 10],
    ] as const) {
      const [expected, got] = [
        (await full.claimRescuing(options(limit, ahead), {})).claimed,
        await waiting.claim(options(limit, ahead)),
      ];
      expect(shape(got)).toEqual(shape(expected));
      taken += got.length;
    }
    // every due, unpaused, uncapped row of the served name above the low water, and nothing else
    expect(taken).toBe(12 + 6 + 1 + 1 + 4);
  });

  it('a claim carrying the worker beat upserts its row, live one visibility timeout; a busy claim writes none', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: a.executor, clock });
    const beat = {
      id: 'w',
      host: 'host-1',
      pid: 42,
      startedAt: START - 5_000,
      slots: { 'pg-q': 4 },
      inFlight: [uuidv7(), 'not-a-uuid'],
    };
    await driver.claim(busy());
    expect(await driver.introspect?.workers()).toEqual([]);

    await driver.claim(busy({ presence: { beat, visibilityTimeoutMs: VT } }));
    expect(await driver.introspect?.workers()).toEqual([
      {
        ...beat,
        inFlight: [beat.inFlight[0]],
        queues: ['pg-q'],
        heartbeatAt: START,
        expiresAt: START + VT,
      },
    ]);
    await clock.advance(10_000);
    await driver.claim(
      busy({ presence: { beat: { ...beat, inFlight: [] }, visibilityTimeoutMs: VT } }),
    );
    expect(await driver.introspect?.workers()).toMatchObject([
      { id: 'w', inFlight: [], heartbeatAt: START + 10_000, expiresAt: START + 10_000 + VT },
    ]);
  });

  it('refuses the beat of another worker (X_INVARIANT) before anything is claimed', async () => {
    const driver = postgresJobDriver({ executor: a.executor, clock: frozenClock(START) });
    await driver.enqueue(request({ runAt: START - 1_000 }));
    const beat = { id: 'other', host: 'h', pid: null, startedAt: START, slots: {}, inFlight: [] };
    const error: unknown = await driver
      .claimRescuing(busy({ presence: { beat, visibilityTimeoutMs: VT } }), {})
      .catch((e: unknown) => e);
    expect(errorCodeOf(error)).toBe('X_INVARIANT');
    expect(await driver.introspect?.workers()).toEqual([]);
    expect(await driver.claim(busy())).toHaveLength(1);
  });

  it('computes as low water the least run time of the queue over every name and priority, nothing else', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: a.executor, clock });
    const at = (n: number, over: Partial<EnqueueRequest>): EnqueueRequest =>
      request({ id: uuidv7(START - 500_000 + n), runAt: START - 100_000 + n, ...over });
    const names = ['pg.a', 'pg.b', 'pg.c'];
    const rows = names.flatMap((name, i) =>
      [-5, 0, 7].map((priority, j) => at(10 * i + j, { name, priority })),
    );
    // the least of the queue: a middle name, a middle priority, not the first entry of the index
    rows.push(at(-50, { name: 'pg.b', priority: 0, idempotencyKey: 'least' }));
    rows.push(at(-90, { queue: 'pg-other' })); // another queue: not counted
    const running = at(-99, { name: 'pg.a', maxAttempts: 3, idempotencyKey: 'taken' });
    await driver.enqueueMany([...rows, running]);
    // a row earlier still, but running: not waiting, not counted
    await a.pool.query(
      `update x_jobs set state = 'running', worker_id = 'x', claim = gen_random_uuid(),
      lease_expires_at = now() + interval '1 hour', attempt = 1 where id = $1`,
      [running.id],
    );
    // a claim sent after the enqueues (which lowered the driver's bound to what they put in the past) computes it
    await clock.advance(1);
    await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'pg-q', limit: 0, names: ['pg.a'] }],
      visibilityTimeoutMs: VT,
    });
    expect(driver.lowWater.bound('pg-q')).toBe(START - 100_000 - 50);
  });
});
