import { task, type TaskHandle } from '../declare/task';
import { compileCron } from './cron-schedule';
import { schedulerFleet } from './testing/scheduler-fleet';
import { tickJob } from '../../test/tick-tasks';

/** The table documented in docs/dst.md: what fires on each 2026 switch day, as UTC instants. */
const TABLE: readonly (readonly [zone: string, day: string, cron: string, fires: string[]])[] = [
  // spring forward: a wall time the gap skips fires shifted forward by the gap — 02:00 at 03:00, 02:30 at 03:30
  ['America/New_York', '2026-03-08', '0 2 * * *', ['2026-03-08T07:00:00.000Z']],
  ['America/New_York', '2026-03-08', '30 2 * * *', ['2026-03-08T07:30:00.000Z']],
  ['America/New_York', '2026-03-08', '30 1 * * *', ['2026-03-08T06:30:00.000Z']],
  ['Europe/Berlin', '2026-03-29', '0 2 * * *', ['2026-03-29T01:00:00.000Z']],
  ['Europe/Berlin', '2026-03-29', '30 2 * * *', ['2026-03-29T01:30:00.000Z']],
  ['Europe/Berlin', '2026-03-29', '30 1 * * *', ['2026-03-29T00:30:00.000Z']],
  // …every one of them, not only the first (croner alone fires 03:00 and drops 02:15, 02:30, 02:45)
  [
    'America/New_York',
    '2026-03-08',
    '*/15 2 * * *',
    [
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:15:00.000Z',
      '2026-03-08T07:30:00.000Z',
      '2026-03-08T07:45:00.000Z',
    ],
  ],
  // a shifted time that lands on a time the expression also names shares its one fire
  ['America/New_York', '2026-03-08', '0 2,3 * * *', ['2026-03-08T07:00:00.000Z']],
  // Lord Howe's gap is 30 minutes (02:00 → 02:30): 02:15 fires at 02:45
  ['Australia/Lord_Howe', '2026-10-04', '15 2 * * *', ['2026-10-03T15:45:00.000Z']],
  // fall back: a repeated wall time fires once, at its first (daylight-time) instant
  ['America/New_York', '2026-11-01', '0 2 * * *', ['2026-11-01T07:00:00.000Z']],
  ['America/New_York', '2026-11-01', '30 1 * * *', ['2026-11-01T05:30:00.000Z']],
  ['Europe/Berlin', '2026-10-25', '0 2 * * *', ['2026-10-25T00:00:00.000Z']],
  ['Europe/Berlin', '2026-10-25', '30 1 * * *', ['2026-10-24T23:30:00.000Z']],
  ['America/New_York', '2026-11-01', '30 2 * * *', ['2026-11-01T07:30:00.000Z']],
  ['Europe/Berlin', '2026-10-25', '30 2 * * *', ['2026-10-25T00:30:00.000Z']],
  // …so a sub-hourly schedule is quiet for the repeated hour's second pass
  [
    'America/New_York',
    '2026-11-01',
    '*/30 1-2 * * *',
    [
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T07:30:00.000Z',
    ],
  ],
];

const tick = tickJob('dst');
const declared = new Map<string, TaskHandle>();
const taskFor = (zone: string, cron: string): TaskHandle => {
  const key = `${zone} ${cron}`;
  let handle = declared.get(key);
  if (handle === undefined) {
    handle = task({
      name: `dst.${zone.replace('/', '.').replace(/_/g, '-')}.${declared.size}`,
      cron,
      tz: zone,
      enqueue: (occurrenceMs) => [[tick, { occurrenceMs }]],
    });
    declared.set(key, handle);
  }
  return handle;
};

const localDay = (zone: string, ms: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, dateStyle: 'short' }).format(new Date(ms));

describe('DST: what fires on the 2026 switch days', () => {
  it.each(TABLE)('%s %s %s', async (zone, day, cron, fires) => {
    const handle = taskFor(zone, cron);
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    const fleet = schedulerFleet({
      startMs: Date.UTC(y, m - 1, d - 1, 12),
      tickIntervalMs: 60_000,
      renewEveryMs: 60_000,
    });
    fleet.spawn([handle]);
    await fleet.clock.advance(48 * 3_600_000);
    await fleet.stopAll();

    const onDay = (await fleet.rows())
      .map((r) => (r.input as { occurrenceMs: number }).occurrenceMs)
      .filter((at) => localDay(zone, at) === day)
      .sort((a, b) => a - b)
      .map((at) => new Date(at).toISOString());
    expect(onDay).toEqual(fires);
  });
});

describe('DST: the resolver agrees with itself through a spring-forward night', () => {
  // next(ref) from any reference must be the first element of the chain walked from before the switch: catch-up
  // bisects over next(), so an answer that skips or repeats a shifted occurrence would move a watermark wrongly.
  it.each([
    ['America/New_York', '2026-03-08T04:00:00Z'],
    ['Europe/Berlin', '2026-03-28T22:00:00Z'],
    ['Australia/Lord_Howe', '2026-10-03T13:00:00Z'],
  ])('%s from %s', (tz, start) => {
    const from = Date.parse(start);
    for (const cron of ['0 2 * * *', '30 2 * * *', '*/15 2 * * *', '*/20 1-3 * * *', '* * * * *']) {
      const schedule = compileCron('spec', cron, tz, from);
      const chain: number[] = [];
      for (let c = schedule.next(from - 3_600_000); c !== undefined && c < from + 2 * 86_400_000;) {
        chain.push(c);
        c = schedule.next(c);
      }
      expect(new Set(chain).size).toBe(chain.length);
      for (let ref = from; ref < from + 6 * 3_600_000; ref += 7 * 60_000 + 13_000) {
        const expected = chain.find((c) => c > ref);
        expect([cron, ref, schedule.next(ref)]).toEqual([cron, ref, expected]);
      }
    }
  });
});
