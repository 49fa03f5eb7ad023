import { DEFAULT_LEASE_TTL_MS } from './lease-leader';
import { schedulerFleet, type SchedulerFleet } from './testing/scheduler-fleet';
import { tickJob, tickTask } from '../../test/tick-tasks';

const tick = tickJob('election');
const everySecond = tickTask(tick, 'election.every-second', '* * * * * *', {
  catchUp: 'run-all',
  maxCatchUp: 100,
});

/** Advances one second at a time, asserting after each step that at most one live member leads. */
async function drive(fleet: SchedulerFleet, seconds: number, leaders: number[]): Promise<void> {
  for (let i = 0; i < seconds; i++) {
    await fleet.clock.advance(1_000);
    const live = fleet.leaders();
    expect(live.length).toBeLessThanOrEqual(1);
    leaders.push(live.length);
  }
}

/** The occurrences the queue holds, with how many rows each one got. */
async function occurrences(fleet: SchedulerFleet): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const row of await fleet.rows()) {
    const at = (row.input as { occurrenceMs: number }).occurrenceMs;
    counts.set(at, (counts.get(at) ?? 0) + 1);
  }
  return counts;
}

function expectEachSecondOnce(counts: Map<number, number>, from: number, to: number): void {
  const expected: number[] = [];
  for (let at = from; at <= to; at += 1_000) expected.push(at);
  expect([...counts.keys()].sort((a, b) => a - b)).toEqual(expected);
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
}

describe('three schedulers on one state and one lease table', () => {
  let fleet: SchedulerFleet;
  afterEach(() => fleet.stopAll());

  it('enqueues each of 100 every-second occurrences exactly once, under exactly one leader', async () => {
    fleet = schedulerFleet();
    const armedAt = fleet.clock.now();
    for (let i = 0; i < 3; i++) fleet.spawn([everySecond]);
    const leaders: number[] = [];
    await fleet.clock.flush();
    await drive(fleet, 100, leaders);

    expect(leaders.every((n) => n === 1)).toBe(true);
    expect(new Set(fleet.calls.filter((c) => c.call === 'fire').map((c) => c.member)).size).toBe(1);
    expectEachSecondOnce(await occurrences(fleet), armedAt + 1_000, armedAt + 100_000);
    expect(await fleet.state.taskFires()).toEqual([
      { task: everySecond.name, occurrenceMs: armedAt + 100_000, firedAt: armedAt + 100_000 },
    ]);
  });

  it('hands over within one lease TTL when the leader is killed, with no double fire', async () => {
    fleet = schedulerFleet();
    const armedAt = fleet.clock.now();
    for (let i = 0; i < 3; i++) fleet.spawn([everySecond]);
    const leaders: number[] = [];
    await fleet.clock.flush();
    await drive(fleet, 35, leaders);

    const [first] = fleet.leaders();
    fleet.kill(first!);
    const killedAt = fleet.clock.now();
    let handedOverAt: number | undefined;
    for (let i = 0; i < 65; i++) {
      await drive(fleet, 1, leaders);
      if (handedOverAt === undefined && fleet.leaders().length === 1)
        handedOverAt = fleet.clock.now();
    }

    expect(handedOverAt).toBeDefined();
    expect(handedOverAt! - killedAt).toBeLessThanOrEqual(DEFAULT_LEASE_TTL_MS);
    expect(fleet.leaders()[0]).not.toBe(first);
    // run-all: the new leader fires what the dead one missed, once each, and keeps going
    expectEachSecondOnce(await occurrences(fleet), armedAt + 1_000, fleet.clock.now());
    expect(fleet.logger.named('jobs.scheduler.fire.refused')).toEqual([]);
  });

  it('hands over on a graceful stop at the standby’s next ask, with no double fire', async () => {
    fleet = schedulerFleet();
    const armedAt = fleet.clock.now();
    for (let i = 0; i < 3; i++) fleet.spawn([everySecond]);
    const leaders: number[] = [];
    await fleet.clock.flush();
    await drive(fleet, 20, leaders);
    const [first] = fleet.leaders();
    await first!.stop();
    expect(fleet.table.lease()).toBeUndefined();
    await drive(fleet, 30, leaders);
    expect(fleet.leaders()).toHaveLength(1);
    expectEachSecondOnce(await occurrences(fleet), armedAt + 1_000, fleet.clock.now());
  });

  it('refuses a second fire of one occurrence through the watermark, and its key dedupes the row', async () => {
    fleet = schedulerFleet();
    fleet.spawn([everySecond]);
    await fleet.clock.flush();
    await drive(fleet, 3, []);
    const [fire] = await fleet.state.taskFires();
    const rows = await fleet.rows();
    const last = rows[rows.length - 1]!;
    const replay = await fleet.state.fire({
      task: everySecond.name,
      occurrenceMs: fire!.occurrenceMs,
      watermarkMs: fire!.occurrenceMs,
      previousWatermarkMs: fire!.occurrenceMs - 1_000,
      requests: [],
    });
    expect(replay.fired).toBe(false);
    expect(last.idempotencyKey).toBe(
      `task:${everySecond.name}:${fire!.occurrenceMs}:0:tick:${fire!.occurrenceMs}`,
    );
  });
});
