import { claimOf, type EnqueueRequest, type JobRow, type RescueSlot } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { request } from '../test/requests';
import { resetJobTables } from '../test/test-database';
import { pgJobsSpec, type SpecDatabase } from '../test/pg-jobs-spec';
import { postgresJobDriver, type PostgresJobDriver } from './driver/pg-driver';

const START = Date.UTC(2026, 0, 1);
const QUEUES = ['burial-a', 'burial-b', 'burial-c'];
const NAMES = ['burial.one', 'burial.two', 'burial.three'];
/** Seeds of the generated states (a red round names its seed: replay it by running this file). */
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/** mulberry32: a small seeded generator, so every round's state is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One generated round: the same writes go to both databases, then one rescues and the other claims rescuing. */
interface Round {
  readonly slots: readonly RescueSlot[];
  readonly visibilityTimeoutMs: number;
  readonly dropExhausted: ReadonlySet<string>;
}

/** What a burial left behind, comparable across the two databases. */
interface Burial {
  readonly buried: readonly string[];
  readonly rows: readonly (JobRow | undefined)[];
  readonly counters: readonly unknown[];
}

/**
 * SQL_RESCUE (`driver.rescue`) buries exactly what SQL_CLAIM's `exhausted` arm (`driver.claimRescuing`) buries from
 * the same state: the same rows, settled the same (`dead`, or `failed` for a name in `dropExhausted`, with
 * LEASE_LAPSED_FINAL_ATTEMPT at the same time), counted into the same 1-minute buckets. Each seeded round writes one
 * state into two databases — leases live, just lapsed and lapsed a visibility timeout more, final attempts and not,
 * names served, unserved and queues whose slot serves none, a paused queue, waiting and finished rows around them — and
 * then rescues in one and claims rescuing (slot limits 0: nothing handed out) in the other.
 */
describe('SQL_RESCUE and SQL_CLAIM bury the same rows (PostgreSQL, driven clock)', () => {
  const a = pgJobsSpec();
  const b = pgJobsSpec();

  /** The same write on both drivers. */
  async function both<T>(
    drivers: readonly PostgresJobDriver[],
    write: (d: PostgresJobDriver) => Promise<T>,
  ) {
    return Promise.all(drivers.map(write));
  }

  /** Writes the round's state into both databases through their drivers; answers what to rescue. */
  async function seed(
    seedNo: number,
    clock: FrozenClock,
    drivers: readonly PostgresJobDriver[],
  ): Promise<Round> {
    const next = random(seedNo);
    const pick = <T>(of: readonly T[]): T => of[Math.floor(next() * of.length)] as T;
    const rows = 12 + Math.floor(next() * 10);
    for (let i = 0; i < rows; i++) {
      const queue = pick(QUEUES);
      const name = pick(NAMES);
      const req = request({ queue, name, runAt: clock.now(), maxAttempts: pick([1, 1, 2, 3]) });
      await both(drivers, (d) => d.enqueue(req));
      const lease = pick([1_000, 5_000, 20_000, 60_000]);
      const leased = await both(drivers, (d) =>
        d.claim({
          workerId: `dead-${i}`,
          slots: [{ queue, limit: 1, names: [name] }],
          visibilityTimeoutMs: lease,
        }),
      );
      for (const claimed of leased) expect(claimed.map((r) => r.id)).toEqual([req.id]);
      // a few finish: a settled row is never buried
      if (next() < 0.15) {
        await Promise.all(drivers.map((d, k) => d.ack(req.id, claimOf(leased[k]![0]!))));
      }
      await clock.advance(Math.floor(next() * 3_000));
    }
    // waiting rows beside them, untouched by either
    const waiting: EnqueueRequest[] = QUEUES.map((queue) => request({ queue, runAt: clock.now() }));
    for (const req of waiting) await both(drivers, (d) => d.enqueue(req));
    if (next() < 0.5) {
      const paused = pick(QUEUES);
      await both(drivers, (d) => d.introspect.pauseQueue(paused));
    }
    await clock.advance(Math.floor(next() * 70_000));

    const slots: RescueSlot[] = [];
    for (const queue of QUEUES) {
      const shape = next();
      if (shape < 0.2) continue;
      if (shape < 0.45) slots.push({ queue });
      else if (shape < 0.6) slots.push({ queue, names: [] });
      else slots.push({ queue, names: NAMES.filter(() => next() < 0.5) });
      // a queue named by two slots serves the names of both
      if (next() < 0.15) slots.push({ queue, names: [pick(NAMES)] });
    }
    if (slots.length === 0) slots.push({ queue: pick(QUEUES) });
    return {
      slots,
      visibilityTimeoutMs: pick([1_000, 10_000, 30_000]),
      dropExhausted: new Set(NAMES.filter(() => next() < 0.3)),
    };
  }

  /** The rows of both databases a burial may have touched, and their counter buckets. */
  async function burial(
    db: SpecDatabase,
    d: PostgresJobDriver,
    buried: readonly JobRow[],
  ): Promise<Burial> {
    const { rows } = await db.executor.query<{ id: string }>(
      'select id from x_jobs order by id',
      [],
    );
    const counters = await db.executor.query(
      'select name, bucket_ms, bucket_start, failed, dead from x_job_counters where failed > 0 or dead > 0 order by 1, 2, 3',
      [],
    );
    return {
      buried: buried.map((r) => r.id).sort(),
      rows: await Promise.all(
        rows.map(async ({ id }) => {
          const row = await d.get(id);
          // the claim tokens and workers of live leases differ between the databases (fresh tokens per claim)
          return row && { ...row, claim: row.claim === null ? null : 'held' };
        }),
      ),
      counters: counters.rows,
    };
  }

  it.each(SEEDS)('seed %i: the same rows buried, settled and counted alike', async (seedNo) => {
    await Promise.all([resetJobTables(a.executor), resetJobTables(b.executor)]);
    const clock = frozenClock(START);
    const rescuer = postgresJobDriver({ executor: a.executor, clock });
    const claimer = postgresJobDriver({ executor: b.executor, clock });
    const round = await seed(seedNo, clock, [rescuer, claimer]);

    const rescued = await rescuer.rescue({
      slots: round.slots,
      visibilityTimeoutMs: round.visibilityTimeoutMs,
      dropExhausted: round.dropExhausted,
    });
    const pass = await claimer.claimRescuing(
      {
        workerId: 'survivor',
        slots: round.slots.map((slot) => ({ ...slot, limit: 0 })),
        visibilityTimeoutMs: round.visibilityTimeoutMs,
      },
      { dropExhausted: round.dropExhausted },
    );
    expect(pass.claimed).toEqual([]);

    const [viaRescue, viaClaim] = await Promise.all([
      burial(a, rescuer, rescued.buried),
      burial(b, claimer, pass.rescued.buried),
    ]);
    expect(viaRescue.buried).toEqual(viaClaim.buried);
    expect(sortedById(rescued.buried)).toEqual(sortedById(pass.rescued.buried));
    expect(viaRescue.counters).toEqual(viaClaim.counters);
    // every row a burial could touch reads alike, except what a rescue does beyond burying: lapsed leases with
    // attempts left go back to ready there, and stay running for the next claim here
    const buriedOrLive = (rows: Burial['rows']) =>
      rows.filter((row) => row !== undefined && row.state !== 'running' && row.state !== 'ready');
    expect(buriedOrLive(viaRescue.rows)).toEqual(buriedOrLive(viaClaim.rows));
    burials.push(viaRescue.buried.length);
  });

  const burials: number[] = [];
  it('the rounds are not vacuous: a third of them or more bury rows', () => {
    expect(burials).toHaveLength(SEEDS.length);
    expect(burials.filter((n) => n > 0).length).toBeGreaterThan(SEEDS.length / 3);
  });
});

function sortedById(rows: readonly JobRow[]): JobRow[] {
  return [...rows].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}
