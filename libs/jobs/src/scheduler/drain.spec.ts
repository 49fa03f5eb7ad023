import { memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { recordingLogger } from '../util/logger';
import { jobScheduler } from './job-scheduler';
import { memoryLeaseLeader, memoryLeaseTable } from './memory-lease-leader';
import { memorySchedulerState } from './memory-scheduler-state';
import type { SchedulerState } from './scheduler-state';
import { tickJob, tickTask } from '../../test/tick-tasks';

const tick = tickJob('drain');
const everySecond = tickTask(tick, 'drain.every-second', '* * * * * *');

/** A scheduler whose state's fire waits on a gate the test opens. */
function gated() {
  const clock = frozenClock();
  const driver = memoryJobDriver({ clock });
  const table = memoryLeaseTable({ clock });
  const logger = recordingLogger();
  const inner = memorySchedulerState({ driver, clock });
  let open: () => void = () => undefined;
  let gate: Promise<void> | undefined;
  const state: SchedulerState = {
    ...inner,
    fire: async (request) => {
      gate = new Promise<void>((resolve) => (open = resolve));
      await gate;
      return inner.fire(request);
    },
  };
  const scheduler = jobScheduler({
    driver,
    tasks: [everySecond],
    clock,
    logger,
    state,
    leader: memoryLeaseLeader({ table, holderId: 'drained' }),
  });
  return {
    clock,
    driver,
    table,
    logger,
    scheduler,
    open: () => open(),
    firing: () => gate !== undefined,
  };
}

describe('drain', () => {
  it('stops dispatching and releases the lease when no round is in flight', async () => {
    const clock = frozenClock();
    const table = memoryLeaseTable({ clock });
    const scheduler = jobScheduler({
      driver: memoryJobDriver({ clock }),
      tasks: [everySecond],
      clock,
      leader: memoryLeaseLeader({ table, holderId: 'a' }),
    });
    scheduler.start();
    await clock.advance(3_000);
    expect(table.lease()?.holder).toBe('a');
    await scheduler.stop();
    expect(scheduler.status).toBe('stopped');
    expect(scheduler.isLeader()).toBe(false);
    expect(table.lease()).toBeUndefined();
    expect(clock.pending()).toBe(0);
  });

  it('finishes the round in flight before it releases the lease', async () => {
    const h = gated();
    h.scheduler.start();
    await h.clock.advance(1_000);
    expect(h.firing()).toBe(true);
    const stopped = h.scheduler.stop();
    await h.clock.flush();
    expect(h.table.lease()?.holder).toBe('drained');
    h.open();
    await stopped;
    expect((await h.driver.introspect.list()).length).toBe(1);
    expect(h.table.lease()).toBeUndefined();
  });

  it('keeps the lease when a round is still enqueueing at the deadline; the lease expires on its own', async () => {
    const h = gated();
    h.scheduler.start();
    await h.clock.advance(1_000);
    expect(h.firing()).toBe(true);
    const stopped = h.scheduler.stop({ deadlineMs: 5_000 });
    await h.clock.advance(5_000);
    await stopped;
    expect(h.scheduler.status).toBe('stopped');
    expect(h.logger.named('jobs.scheduler.drain-abandoned')).toHaveLength(1);
    expect(h.table.lease()?.holder).toBe('drained');
    await h.clock.advance(30_000);
    expect(h.table.lease()).toBeUndefined();
  });
});

describe('leadership', () => {
  it('demotes itself on a renewal that fails, and fires nothing until it leads again', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const leader = memoryLeaseLeader();
    const logger = recordingLogger();
    const scheduler = jobScheduler({ driver, tasks: [everySecond], clock, leader, logger });
    scheduler.start();
    await clock.advance(5_000);
    const fired = (await driver.introspect.list()).length;
    expect(fired).toBe(5);

    const acquire = leader.acquire;
    leader.acquire = () => Promise.reject(new Error('connection reset'));
    await clock.advance(10_000);
    expect(scheduler.isLeader()).toBe(false);
    expect(logger.named('jobs.scheduler.leader.lost')).toHaveLength(1);
    const whileDemoted = (await driver.introspect.list()).length;
    await clock.advance(9_000);
    expect((await driver.introspect.list()).length).toBe(whileDemoted);

    leader.acquire = acquire;
    await clock.advance(6_000); // the next ask, 30 s in
    expect(scheduler.isLeader()).toBe(true);
    // back in the lead it reloads the watermark, and skip fires the latest occurrence it missed, once
    expect((await driver.introspect.list()).length).toBe(whileDemoted + 1);
    await scheduler.stop();
  });

  it('warns when it runs on the in-memory defaults', () => {
    const logger = recordingLogger();
    const scheduler = jobScheduler({
      driver: memoryJobDriver(),
      tasks: [everySecond],
      clock: frozenClock(),
      logger,
    });
    scheduler.start();
    expect(logger.named('jobs.scheduler.memory-defaults')).toHaveLength(1);
    return scheduler.stop();
  });

  it('refuses options no path accepts', () => {
    const driver = memoryJobDriver();
    expect(() => jobScheduler({ driver, tasks: [everySecond], tickIntervalMs: 0 })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    expect(() => jobScheduler({ driver, tasks: [everySecond], renewEveryMs: 2 ** 31 })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    expect(() => jobScheduler({ driver, tasks: [{ name: 'x' } as never] })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });
});

describe('memory lease table', () => {
  it('gives the lease to one holder, renews it for that holder only, and frees it on expiry or release', async () => {
    const clock = frozenClock();
    const table = memoryLeaseTable({ clock });
    expect(table.acquire('k', 'a', 1_000)).toBe(true);
    expect(table.acquire('k', 'b', 1_000)).toBe(false);
    await clock.advance(900);
    expect(table.acquire('k', 'a', 1_000)).toBe(true);
    await clock.advance(900);
    expect(table.acquire('k', 'b', 1_000)).toBe(false);
    await clock.advance(100);
    expect(table.acquire('k', 'b', 1_000)).toBe(true);
    table.release('k', 'a');
    expect(table.lease('k')?.holder).toBe('b');
    table.release('k', 'b');
    expect(table.lease('k')).toBeUndefined();
  });

  it('a leader demoted by setLeading(false) gives the row back at its next ask, for a standby to take at once', async () => {
    const table = memoryLeaseTable({ clock: frozenClock() });
    const a = memoryLeaseLeader({ table, holderId: 'a' });
    const b = memoryLeaseLeader({ table, holderId: 'b' });
    expect(await a.acquire()).toBe(true);
    a.setLeading(false);
    expect(await a.acquire()).toBe(false);
    expect(table.lease()).toBeUndefined();
    expect(await b.acquire()).toBe(true);
  });
});
