import { task, type CatchUpPolicy } from '../declare/task';
import { PAUSE_RECHECK_MS } from './scheduler-options';
import { schedulerFleet, type SchedulerFleet } from './testing/scheduler-fleet';
import { tickJob } from '../../test/tick-tasks';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);
const mmss = (ms: number): string => new Date(ms).toISOString().slice(14, 19);

const tick = tickJob('pause');
const everyMinute = (catchUp: CatchUpPolicy) =>
  task({
    name: `pause.every-minute.${catchUp}`,
    cron: '* * * * *',
    tz: 'UTC',
    catchUp,
    enqueue: (occurrenceMs) => [[tick, { occurrenceMs }]],
  });
const tasks = { skip: everyMinute('skip'), 'run-all': everyMinute('run-all') };

async function fired(fleet: SchedulerFleet): Promise<string[]> {
  return (await fleet.rows())
    .map((r) => (r.input as { occurrenceMs: number }).occurrenceMs)
    .sort((a, b) => a - b)
    .map(mmss);
}

/** Fires 01:00, pauses at 01:30, lets 5 minutes pass (06:30), resumes. */
async function pausedFiveMinutes(
  policy: CatchUpPolicy & keyof typeof tasks,
): Promise<SchedulerFleet> {
  const fleet = schedulerFleet({ startMs: START });
  fleet.spawn([tasks[policy]]);
  await fleet.clock.advance(90_000);
  await fleet.state.pauseTask(tasks[policy].name);
  expect(await fleet.state.pausedTasks()).toEqual([tasks[policy].name]);
  await fleet.clock.advance(5 * MINUTE);
  expect(await fired(fleet)).toEqual(['01:00']);
  await fleet.state.resumeTask(tasks[policy].name);
  await fleet.clock.advance(PAUSE_RECHECK_MS);
  return fleet;
}

describe('a paused task', () => {
  let fleet: SchedulerFleet;
  afterEach(() => fleet.stopAll());

  it('does not fire, is re-checked every PAUSE_RECHECK_MS, and on resume skip fires the latest missed one', async () => {
    fleet = await pausedFiveMinutes('skip');
    expect(await fired(fleet)).toEqual(['01:00', '06:00']);
    const checks = fleet.calls.filter((c) => c.call === 'pausedTasks').map((c) => c.at - START);
    // read when 01:00 was due; found paused at 02:00, then looked at every 5 s until the resume landed
    expect(checks.slice(0, 4)).toEqual([60_000, 120_000, 125_000, 130_000]);
    expect(checks.filter((at) => at > 120_000 && at < 390_000)).toHaveLength(53);
    await fleet.clock.advance(MINUTE);
    expect((await fired(fleet)).slice(-1)).toEqual(['07:00']);
  });

  it('on resume, run-all fires every occurrence the pause held back', async () => {
    fleet = await pausedFiveMinutes('run-all');
    expect(await fired(fleet)).toEqual(['01:00', '02:00', '03:00', '04:00', '05:00', '06:00']);
  });

  it('is held for the very next occurrence when paused just before it', async () => {
    fleet = schedulerFleet({ startMs: START });
    fleet.spawn([tasks.skip]);
    await fleet.clock.advance(MINUTE - 1);
    await fleet.state.pauseTask(tasks.skip.name);
    await fleet.clock.advance(1);
    expect(await fired(fleet)).toEqual([]);
  });

  it('held with others, costs one read of the pause set every PAUSE_RECHECK_MS, however many are held', async () => {
    // due at seconds 0…4 of each minute: each found paused in its own round, at its own phase
    const staggered = [0, 1, 2, 3, 4].map((second) =>
      task({
        name: `pause.staggered.${second}`,
        cron: `${second} * * * * *`,
        tz: 'UTC',
        enqueue: (occurrenceMs) => [[tick, { occurrenceMs }]],
      }),
    );
    fleet = schedulerFleet({ startMs: START });
    for (const held of staggered) await fleet.state.pauseTask(held.name);
    fleet.spawn(staggered); // armed at START, then each found paused when first due
    await fleet.clock.advance(3 * MINUTE);
    // from the minute after each was first found paused
    const reads = fleet.calls.filter(
      (c) => c.call === 'pausedTasks' && c.at >= START + 2 * MINUTE && c.at < START + 3 * MINUTE,
    );
    // was 60: one read per held task every 5 s
    expect(reads).toHaveLength(MINUTE / PAUSE_RECHECK_MS);
    expect(await fired(fleet)).toEqual([]);
  });
});

describe('a task paused before it was ever armed', () => {
  it('is armed when first seen anyway, so on resume run-all fires what the pause held back since then', async () => {
    const seconds = task({
      name: 'pause.every-second.run-all',
      cron: '* * * * * *',
      tz: 'UTC',
      catchUp: 'run-all',
      maxCatchUp: 100,
      enqueue: (occurrenceMs) => [[tick, { occurrenceMs }]],
    });
    const fleet = schedulerFleet({ startMs: START });
    // an armed task falls due in the same first round, so the pause set is read there
    await fleet.state.skipTo(tasks.skip.name, START - MINUTE, undefined);
    await fleet.state.pauseTask(seconds.name);
    fleet.spawn([tasks.skip, seconds]);
    await fleet.clock.flush();
    expect(await fleet.state.load([seconds.name])).toEqual(new Map([[seconds.name, START]]));
    await fleet.clock.advance(10_000);
    await fleet.state.resumeTask(seconds.name);
    await fleet.clock.advance(PAUSE_RECHECK_MS);
    const held = (await fleet.rows())
      .map((r) => (r.input as { occurrenceMs: number }).occurrenceMs - START)
      .filter((at) => at > 0);
    expect(held.sort((a, b) => a - b)).toEqual(
      Array.from({ length: 15 }, (_, i) => (i + 1) * 1_000),
    );
    await fleet.stopAll();
  });
});
