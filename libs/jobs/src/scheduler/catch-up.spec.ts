import { job } from '../declare/job';
import { task, type CatchUpPolicy, type TaskHandle } from '../declare/task';
import { t } from '../schema';
import { schedulerFleet, type SchedulerFleet } from './testing/scheduler-fleet';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.UTC(2026, 0, 1);
const hhmm = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

const tick = job({
  name: 'catch-up.tick',
  input: t.object({ task: t.string, occurrenceMs: t.number.int() }),
  idempotencyKey: ({ task: name, occurrenceMs }) => `${name}:${occurrenceMs}`,
  tenant: 'none',
});
const everyTen = (catchUp: CatchUpPolicy): TaskHandle =>
  task({
    name: `catch-up.every-ten.${catchUp}`,
    cron: '*/10 * * * *',
    tz: 'UTC',
    catchUp,
    enqueue: (occurrenceMs) => [[tick, { task: catchUp, occurrenceMs }]],
  });
const tasks = {
  skip: everyTen('skip'),
  'run-once': everyTen('run-once'),
  'run-all': everyTen('run-all'),
};

/** The occurrences enqueued, in time order (ids minted in one millisecond do not sort by mint order). */
async function fired(fleet: SchedulerFleet): Promise<string[]> {
  return (await fleet.rows())
    .map((r) => (r.input as { occurrenceMs: number }).occurrenceMs)
    .sort((a, b) => a - b)
    .map(hhmm);
}

/** Runs a scheduler 25 minutes (fires 00:10 and 00:20), stops it, lets 3 hours pass, and starts another. */
async function restartAfterThreeHours(policy: CatchUpPolicy): Promise<SchedulerFleet> {
  const fleet = schedulerFleet({ startMs: START });
  const before = fleet.spawn([tasks[policy]]);
  await fleet.clock.advance(25 * MINUTE);
  await before.stop();
  expect(await fired(fleet)).toEqual(['00:10', '00:20']);
  await fleet.clock.advance(3 * HOUR); // 03:25, nothing running
  fleet.spawn([tasks[policy]]);
  await fleet.clock.flush();
  return fleet;
}

describe('restart after a 3-hour gap', () => {
  let fleet: SchedulerFleet;
  afterEach(() => fleet.stopAll());

  it('skip fires the true latest missed occurrence only, then the next real one', async () => {
    fleet = await restartAfterThreeHours('skip');
    expect(await fired(fleet)).toEqual(['00:10', '00:20', '03:20']);
    await fleet.clock.advance(10 * MINUTE);
    expect(await fired(fleet)).toEqual(['00:10', '00:20', '03:20', '03:30']);
    expect(await fleet.state.taskFires()).toEqual([
      expect.objectContaining({ occurrenceMs: START + 3 * HOUR + 30 * MINUTE }),
    ]);
  });

  it('run-once fires the earliest missed occurrence once, passes the rest, then waits', async () => {
    fleet = await restartAfterThreeHours('run-once');
    expect(await fired(fleet)).toEqual(['00:10', '00:20', '00:30']);
    const name = tasks['run-once'].name;
    expect(await fleet.state.load([name])).toEqual(
      new Map([[name, START + 3 * HOUR + 20 * MINUTE]]),
    );
    expect(await fleet.state.taskFires()).toEqual([
      expect.objectContaining({ task: name, occurrenceMs: START + 30 * MINUTE }),
    ]);
    await fleet.clock.advance(4 * MINUTE);
    expect(await fired(fleet)).toEqual(['00:10', '00:20', '00:30']);
    await fleet.clock.advance(2 * MINUTE);
    expect(await fired(fleet)).toEqual(['00:10', '00:20', '00:30', '03:30']);
  });

  it('run-all fires every missed occurrence, at most maxCatchUp (10) per round', async () => {
    fleet = await restartAfterThreeHours('run-all');
    const missed = ['00:30', '00:40', '00:50', '01:00', '01:10', '01:20', '01:30', '01:40'];
    const rest = ['01:50', '02:00', '02:10', '02:20', '02:30', '02:40', '02:50', '03:00', '03:10'];
    expect(await fired(fleet)).toEqual(['00:10', '00:20', ...missed, ...rest.slice(0, 2)]);
    await fleet.clock.advance(1_000);
    expect(await fired(fleet)).toEqual(['00:10', '00:20', ...missed, ...rest, '03:20']);
    await fleet.clock.advance(5 * MINUTE);
    expect((await fired(fleet)).slice(-1)).toEqual(['03:30']);
    expect(fleet.logger.named('jobs.scheduler.fire.refused')).toEqual([]);
  });

  it('arms a task seen for the first time: now becomes its watermark and nothing fires for the past', async () => {
    fleet = schedulerFleet({ startMs: START + 5 * HOUR + 5 * MINUTE });
    fleet.spawn([tasks.skip]);
    await fleet.clock.flush();
    expect(await fired(fleet)).toEqual([]);
    expect(await fleet.state.load([tasks.skip.name])).toEqual(
      new Map([[tasks.skip.name, START + 5 * HOUR + 5 * MINUTE]]),
    );
    expect(await fleet.state.taskFires()).toEqual([]);
    await fleet.clock.advance(5 * MINUTE);
    expect(await fired(fleet)).toEqual(['05:10']);
  });
});

describe('skip after a year-long gap', () => {
  it('fires the true latest occurrence, found in at most 40 evaluations', async () => {
    const nightly = task({
      name: 'catch-up.nightly-berlin',
      cron: '0 3 * * *',
      tz: 'Europe/Berlin',
      enqueue: (occurrenceMs) => [[tick, { task: 'nightly', occurrenceMs }]],
    });
    const fleet = schedulerFleet({ startMs: Date.UTC(2025, 0, 1, 12) });
    const before = fleet.spawn([nightly]);
    await fleet.clock.flush();
    await before.stop();
    await fleet.clock.advance(Date.UTC(2026, 0, 15, 12) - fleet.clock.now());

    const spent = nightly.schedule.evaluations;
    fleet.spawn([nightly]);
    await fleet.clock.flush();
    expect(nightly.schedule.evaluations - spent).toBeLessThanOrEqual(40);
    const rows = await fleet.rows();
    expect(rows.map((r) => new Date((r.input as { occurrenceMs: number }).occurrenceMs))).toEqual([
      new Date('2026-01-15T02:00:00Z'), // 03:00 in Berlin (CET)
    ]);
    await fleet.stopAll();
  });
});

describe('skip after a gap that ends on an occurrence', () => {
  const everySecond = task({
    name: 'catch-up.every-second.skip',
    cron: '* * * * * *',
    tz: 'UTC',
    enqueue: (occurrenceMs) => [[tick, { task: 'every-second', occurrenceMs }]],
  });

  // down from 00:00:02: two missed (03, 04) or three (03, 04, 05), the last one due at the very restart
  it.each([
    [2_000, [1_000, 2_000, 4_000]],
    [3_000, [1_000, 2_000, 5_000]],
  ])(
    'fires only the occurrence due at the instant it restarts (%d ms down)',
    async (downMs, expected) => {
      const fleet = schedulerFleet({ startMs: START });
      const before = fleet.spawn([everySecond]);
      await fleet.clock.advance(2_000);
      await before.stop();
      await fleet.clock.advance(downMs);
      fleet.spawn([everySecond]);
      await fleet.clock.advance(500);
      const rows = await fleet.rows();
      expect(rows.map((r) => (r.input as { occurrenceMs: number }).occurrenceMs - START)).toEqual(
        expected,
      );
      await fleet.stopAll();
    },
  );
});
