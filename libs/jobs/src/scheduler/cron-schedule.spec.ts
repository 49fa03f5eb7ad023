import { task } from '../declare/task';
import { compileCron } from './cron-schedule';
import { latestOccurrence, nextTaskRun, walkOccurrences } from './occurrences';
import { thrownCode } from '../testing/test-kit';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('the resolver', () => {
  it('answers the first occurrence strictly after the reference, to the second', () => {
    const everySecond = compileCron('spec', '* * * * * *', 'UTC');
    expect(iso(everySecond.next(at('2026-01-01T00:00:00.000Z')))).toBe('2026-01-01T00:00:01.000Z');
    expect(iso(everySecond.next(at('2026-01-01T00:00:00.500Z')))).toBe('2026-01-01T00:00:01.000Z');
    const daily = compileCron('spec', '0 3 * * *', 'Europe/Berlin');
    expect(iso(daily.next(at('2026-01-01T02:00:00.000Z')))).toBe('2026-01-02T02:00:00.000Z');
  });

  it('is what nextTaskRun answers, with no scheduler', () => {
    const nightly = task({
      name: 'resolver.nightly',
      cron: '0 3 * * *',
      tz: 'UTC',
      enqueue: () => [],
    });
    expect(iso(nextTaskRun(nightly, at('2026-05-01T12:00:00Z')))).toBe('2026-05-02T03:00:00.000Z');
    expect(iso(nextTaskRun(nightly, new Date('2026-05-01T01:00:00Z')))).toBe(
      '2026-05-01T03:00:00.000Z',
    );
  });

  it('refuses a reference that is no time with X_VALUE_INVALID, where croner threw an uncoded error', async () => {
    const nightly = task({
      name: 'resolver.no-time',
      cron: '0 3 * * *',
      tz: 'UTC',
      enqueue: () => [],
    });
    for (const from of [Number.NaN, Infinity, 1e20, new Date('not a date')]) {
      expect([String(from), await thrownCode(() => nextTaskRun(nightly, from))]).toEqual([
        String(from),
        'X_VALUE_INVALID',
      ]);
    }
    expect(nextTaskRun(nightly, at('2026-05-01T12:00:00Z') + 0.5)).toBe(at('2026-05-02T03:00:00Z'));
  });

  // croner maps a wall time inside a fall-back's repeated hour to its first instant, so from a reference in the
  // second pass it answers a time BEFORE the reference. The resolver must answer the next occurrence after it.
  it.each([
    ['America/New_York', '2026-11-01T04:00:00Z'],
    ['Europe/Berlin', '2026-10-24T23:00:00Z'],
  ])('never answers at or before the reference through the fall-back night in %s', (tz, start) => {
    for (const cron of ['30 1 * * *', '0 2 * * *', '30 2 * * *', '*/30 * * * *', '* * * * *']) {
      const schedule = compileCron('spec', cron, tz);
      const chain: number[] = [];
      let cursor = at(start) - 2 * HOUR;
      while (cursor < at(start) + DAY) {
        cursor = schedule.next(cursor) as number;
        chain.push(cursor);
      }
      for (let ref = at(start); ref < at(start) + 5 * HOUR; ref += 7 * 60_000 + 13_000) {
        const expected = chain.find((c) => c > ref);
        expect([cron, iso(ref), iso(schedule.next(ref))]).toEqual([cron, iso(ref), iso(expected)]);
      }
    }
  });
});

describe('catch-up search', () => {
  /** The brute-force answer: walk every occurrence. */
  const walkLatest = (cron: string, tz: string, after: number, now: number): number | undefined => {
    const schedule = compileCron('spec', cron, tz);
    let last: number | undefined;
    for (let c = schedule.next(after); c !== undefined && c <= now; c = schedule.next(c)) last = c;
    return last;
  };

  it.each([
    ['* * * * * *', 'UTC', 3 * HOUR, 25],
    ['*/5 * * * *', 'Europe/Berlin', 3 * HOUR, 25],
    ['0 3 * * *', 'America/New_York', 365 * DAY, 35],
    ['17 4 * * 1-5', 'Europe/Berlin', 365 * DAY, 35],
  ])(
    'finds the true latest %s (%s) over a gap of %d ms in at most %d evaluations',
    (cron, tz, gap, bound) => {
      const schedule = compileCron('spec', cron, tz);
      const after = at('2026-01-01T00:00:00Z');
      const now = after + gap + 123_456;
      const before = schedule.evaluations;
      const latest = latestOccurrence(schedule, after, now);
      const spent = schedule.evaluations - before;
      expect(spent).toBeLessThanOrEqual(bound);
      const truth =
        cron === '* * * * * *' ? Math.floor(now / 1000) * 1000 : walkLatest(cron, tz, after, now);
      expect(iso(latest)).toBe(iso(truth));
    },
  );

  it('answers every-second over a year in about 35 evaluations', () => {
    const schedule = compileCron('spec', '* * * * * *', 'UTC');
    const after = at('2025-01-01T00:00:00Z');
    const now = at('2026-01-01T12:34:56.789Z');
    const before = schedule.evaluations;
    expect(iso(latestOccurrence(schedule, after, now))).toBe('2026-01-01T12:34:56.000Z');
    expect(schedule.evaluations - before).toBeLessThanOrEqual(40);
  });

  it('answers nothing when no occurrence fell in the gap', () => {
    const schedule = compileCron('spec', '0 3 * * *', 'UTC');
    expect(latestOccurrence(schedule, at('2026-01-01T03:00:00Z'), at('2026-01-02T02:59:59Z'))).toBe(
      undefined,
    );
  });

  it('walks at most the limit, and says where the walk stopped', () => {
    const schedule = compileCron('spec', '0 * * * *', 'UTC');
    const walk = walkOccurrences(
      schedule,
      at('2026-01-01T00:00:00Z'),
      at('2026-01-01T05:30:00Z'),
      3,
    );
    expect(walk.occurrences.map(iso)).toEqual([
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T02:00:00.000Z',
      '2026-01-01T03:00:00.000Z',
    ]);
    expect(iso(walk.next)).toBe('2026-01-01T04:00:00.000Z');
  });
});
