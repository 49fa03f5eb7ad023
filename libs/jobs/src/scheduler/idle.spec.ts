import { job } from '../declare/job';
import { task, type TaskHandle } from '../declare/task';
import { t } from '../schema';
import { schedulerFleet } from './testing/scheduler-fleet';

const MINUTE = 60_000;
const digest = job({
  name: 'idle.digest',
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `digest:${n}`,
  tenant: 'none',
});
const nightly: TaskHandle[] = Array.from({ length: 35 }, (_, n) =>
  task({
    name: `idle.nightly-${n}`,
    cron: `${n % 60} 3 * * *`,
    tz: n % 2 === 0 ? 'UTC' : 'Europe/Berlin',
    enqueue: () => [[digest, { n }]],
  }),
);

describe('idle cost', () => {
  it('reads no store and resolves no cron while idle: the renewal is the only statement (≤ 6 a minute, 35 tasks)', async () => {
    const fleet = schedulerFleet({ startMs: Date.UTC(2026, 0, 1, 12) });
    fleet.spawn(nightly);
    await fleet.clock.advance(MINUTE); // arms all 35 tasks
    const evaluations = (): number => nightly.reduce((sum, x) => sum + x.schedule.evaluations, 0);
    const spent = evaluations();
    const from = fleet.calls.length;

    for (let minute = 0; minute < 10; minute++) {
      const before = fleet.calls.length;
      await fleet.clock.advance(MINUTE);
      expect(fleet.calls.length - before).toBeLessThanOrEqual(6);
    }
    const idle = fleet.calls.slice(from);
    expect(new Set(idle.map((c) => c.call))).toEqual(new Set(['acquire']));
    expect(idle).toHaveLength(60);
    expect(evaluations()).toBe(spent);
    await fleet.stopAll();
  });

  it('a standby asks for the lease every renewEveryMs and does nothing else', async () => {
    const fleet = schedulerFleet({ startMs: Date.UTC(2026, 0, 1, 12) });
    fleet.spawn(nightly);
    fleet.spawn(nightly);
    await fleet.clock.advance(MINUTE);
    const from = fleet.calls.length;
    await fleet.clock.advance(MINUTE);
    const standby = fleet.calls.slice(from).filter((c) => c.member === 1);
    expect(standby.map((c) => c.call)).toEqual(Array(6).fill('acquire'));
    await fleet.stopAll();
  });

  it('never arms a timer past one tick or one renewal, however far the next occurrence is', async () => {
    const yearly = task({
      name: 'idle.yearly',
      cron: '0 0 1 1 *',
      tz: 'UTC',
      enqueue: () => [[digest, { n: -1 }]],
    });
    const fleet = schedulerFleet({ startMs: Date.UTC(2026, 0, 1, 12) });
    const armed: number[] = [];
    const setTimeout = fleet.clock.setTimeout.bind(fleet.clock);
    fleet.clock.setTimeout = (fn, ms) => {
      armed.push(ms);
      return setTimeout(fn, ms);
    };
    fleet.spawn([yearly]);
    await fleet.clock.advance(MINUTE);
    expect(Math.max(...armed)).toBeLessThanOrEqual(10_000);
    await fleet.stopAll();
  });
});
