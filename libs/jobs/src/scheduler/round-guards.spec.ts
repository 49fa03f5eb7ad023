import { task } from '../declare/task';
import { frozenClock } from '../testing/frozen-clock';
import { DEFAULT_LEASE_TTL_MS, SCHEDULER_LEASE_KEY } from './lease-leader';
import { memoryLeaseLeader, memoryLeaseTable } from './memory-lease-leader';
import type { SchedulerState } from './scheduler-state';
import { schedulerFleet } from './testing/scheduler-fleet';
import { schedulerRig } from '../../test/memory-scheduler';
import { tickJob, tickTask } from '../../test/tick-tasks';

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const tick = tickJob('round-guards');
const everySecond = tickTask(tick, 'round-guards.every-second', '* * * * * *', {
  catchUp: 'run-all',
  maxCatchUp: 100,
});
const everyMinute = tickTask(tick, 'round-guards.every-minute', '* * * * *');

/**
 * A leader that finds 5 every-second occurrences due at once (armed at START, started 5 s later): its run-all
 * round's first fire waits on a gate the test opens; the later fires go straight through.
 */
async function gatedCatchUp() {
  const { clock, driver, state: inner, start } = schedulerRig(frozenClock(START));
  const table = memoryLeaseTable({ clock });
  await inner.skipTo(everySecond.name, START, undefined);
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let fires = 0;
  const state: SchedulerState = {
    ...inner,
    fire: async (request) => {
      if (++fires === 1) await gate;
      return inner.fire(request);
    },
  };
  await clock.advance(5_000);
  const scheduler = start({
    tasks: [everySecond],
    state,
    leader: memoryLeaseLeader({ table, holderId: 'gated' }),
  });
  await clock.flush();
  expect(fires).toBe(1);
  const rows = async (): Promise<number> => (await driver.introspect.list()).length;
  return { clock, table, scheduler, open, rows };
}

describe('a round with several fires to make', () => {
  it('makes no further fire once stop() has begun: the fire in flight lands, the rest wait', async () => {
    const h = await gatedCatchUp();
    const stopped = h.scheduler.stop();
    h.open();
    await stopped;
    expect(h.scheduler.status).toBe('stopped');
    expect(await h.rows()).toBe(1);
  });

  it('renews the lease between fires once a renewal is due, and stops firing when it was lost', async () => {
    const h = await gatedCatchUp();
    // the fire in flight outlasts the renewal interval, and meanwhile another node took the lapsed lease
    await h.clock.advance(DEFAULT_LEASE_TTL_MS);
    expect(h.table.acquire(SCHEDULER_LEASE_KEY, 'other', DEFAULT_LEASE_TTL_MS)).toBe(true);
    h.open();
    await h.clock.flush();
    expect(h.scheduler.isLeader()).toBe(false);
    expect(await h.rows()).toBe(1);
    expect(h.table.lease()?.holder).toBe('other');
    await h.scheduler.stop();
  });
});

describe('the loop', () => {
  it('retries a watermark read that fails once a tick, not in a loop at the same instant', async () => {
    const { clock, state: inner, start } = schedulerRig(frozenClock(START));
    const loads: number[] = [];
    const state: SchedulerState = {
      ...inner,
      load: (tasks) => {
        loads.push(clock.now() - START);
        return loads.length <= 3
          ? Promise.reject(new Error('connection reset'))
          : inner.load(tasks);
      },
    };
    const scheduler = start({ tasks: [everyMinute], state });
    await clock.advance(3_000);
    expect(loads).toEqual([0, 1_000, 2_000, 3_000]);
    expect(await state.load([everyMinute.name])).toEqual(
      new Map([[everyMinute.name, START + 3_000]]),
    );
    await scheduler.stop();
  });

  it('fires an occurrence at its instant, even when its ticks fall between two seconds', async () => {
    const fleet = schedulerFleet({ startMs: START + 500 });
    fleet.spawn([everyMinute]);
    await fleet.clock.advance(MINUTE);
    expect(await fleet.state.taskFires()).toEqual([
      { task: everyMinute.name, occurrenceMs: START + MINUTE, firedAt: START + MINUTE },
    ]);
    await fleet.stopAll();
  });

  it('runs one loop however often start() is called: one fire per occurrence, no timer left after stop', async () => {
    const fleet = schedulerFleet({ startMs: START });
    const member = fleet.spawn([everyMinute]);
    member.start();
    member.start();
    await fleet.clock.advance(2 * MINUTE);
    expect(fleet.calls.filter((c) => c.call === 'fire').map((c) => c.at - START)).toEqual([
      MINUTE,
      2 * MINUTE,
    ]);
    expect(fleet.logger.named('jobs.scheduler.fire.refused')).toEqual([]);
    await fleet.stopAll();
    expect(fleet.clock.pending()).toBe(0);
  });
});

describe('dispatching a task', () => {
  it('reads back a task another leader armed first, instead of arming it again', async () => {
    const { clock, state: inner, start } = schedulerRig(frozenClock(START));
    let arms = 0;
    const state: SchedulerState = {
      ...inner,
      // between this leader's read and its arm, another one armed the task 30 s earlier
      skipTo: async (name, watermarkMs, previous) => {
        if (previous === undefined && ++arms === 1)
          await inner.skipTo(name, START - 30_000, undefined);
        if (arms > 5) throw new Error('armed in a loop');
        return inner.skipTo(name, watermarkMs, previous);
      },
    };
    const scheduler = start({ tasks: [everyMinute], state });
    await clock.advance(30_000);
    expect(arms).toBe(1);
    // its watermark, not this leader's, decides: the 00:00 occurrence was still due from it
    expect(await state.taskFires()).toEqual([expect.objectContaining({ occurrenceMs: START })]);
    await clock.advance(30_000);
    expect(await state.taskFires()).toEqual([
      expect.objectContaining({ occurrenceMs: START + MINUTE }),
    ]);
    await scheduler.stop();
  });

  it('announces only the queues a fire put a NEW row on: a retry that dedupes wakes no worker', async () => {
    const { clock, driver, state: inner, start } = schedulerRig(frozenClock(START));
    let fires = 0;
    const state: SchedulerState = {
      ...inner,
      // the first fire's rows land, and its answer is lost: the retry meets them
      fire: async (request) => {
        if (++fires > 1) return inner.fire(request);
        await driver.enqueueMany(request.requests);
        throw new Error('connection lost after commit');
      },
    };
    const woken: string[] = [];
    const scheduler = start({
      tasks: [everyMinute],
      state,
      onEnqueued: (queue) => woken.push(queue),
    });
    await clock.advance(MINUTE + 1_000);
    expect(fires).toBe(2);
    const rows = await driver.introspect.list();
    expect(rows).toHaveLength(1);
    expect(woken).toEqual([]);
    await clock.advance(MINUTE);
    expect(woken).toEqual([rows[0]!.queue]);
    await scheduler.stop();
  });

  it('records an occurrence whose enqueue answers no entry as fired', async () => {
    const quiet = task({
      name: 'round-guards.quiet',
      cron: '* * * * *',
      tz: 'UTC',
      enqueue: () => [],
    });
    const fleet = schedulerFleet({ startMs: START });
    fleet.spawn([quiet]);
    await fleet.clock.advance(MINUTE);
    expect(await fleet.state.taskFires()).toEqual([
      { task: quiet.name, occurrenceMs: START + MINUTE, firedAt: START + MINUTE },
    ]);
    expect(await fleet.rows()).toEqual([]);
    await fleet.stopAll();
  });
});

describe('a leader that leads again', () => {
  it('reads the watermarks another leader moved meanwhile, so its first fire is not refused', async () => {
    const fleet = schedulerFleet({ startMs: START });
    fleet.spawn([everySecond]);
    fleet.spawn([everySecond]);
    const hand = async (from: string, to: string): Promise<void> => {
      fleet.table.release(SCHEDULER_LEASE_KEY, from);
      expect(fleet.table.acquire(SCHEDULER_LEASE_KEY, to, DEFAULT_LEASE_TTL_MS)).toBe(true);
      await fleet.clock.advance(10_000); // past both members' next renewal
    };
    await fleet.clock.advance(15_000);
    expect(fleet.leaders()).toEqual([fleet.members[0]]);
    await hand('member-0', 'member-1');
    expect(fleet.leaders()).toEqual([fleet.members[1]]);
    await hand('member-1', 'member-0');
    expect(fleet.leaders()).toEqual([fleet.members[0]]);
    await fleet.clock.advance(5_000);

    expect(fleet.logger.named('jobs.scheduler.fire.refused')).toEqual([]);
    const seconds = (await fleet.rows()).map(
      (r) => (r.input as { occurrenceMs: number }).occurrenceMs,
    );
    expect(seconds.sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => START + (i + 1) * 1_000),
    );
    await fleet.stopAll();
  });
});
