import { compileCron } from './cron-schedule';

/**
 * Fall-back hours that are not one hour long: Lord Howe repeats 30 minutes (02:00 → 01:30 on 2026-04-05), Troll
 * repeats two hours (03:00 → 01:00 on 2026-10-25). The rule is the same as anywhere: a wall time that exists twice
 * fires once, at its FIRST instant, and a sub-hourly schedule is quiet for the repeated stretch's second pass.
 */
const TABLE: readonly (readonly [zone: string, day: string, cron: string, fires: string[]])[] = [
  ['Australia/Lord_Howe', '2026-04-05', '45 1 * * *', ['2026-04-04T14:45:00.000Z']],
  [
    'Australia/Lord_Howe',
    '2026-04-05',
    '*/10 1 * * *',
    [
      '2026-04-04T14:00:00.000Z',
      '2026-04-04T14:10:00.000Z',
      '2026-04-04T14:20:00.000Z',
      '2026-04-04T14:30:00.000Z',
      '2026-04-04T14:40:00.000Z',
      '2026-04-04T14:50:00.000Z',
    ],
  ],
  ['Australia/Lord_Howe', '2026-04-05', '0 2 * * *', ['2026-04-04T15:30:00.000Z']],
  ['Antarctica/Troll', '2026-10-25', '30 1 * * *', ['2026-10-24T23:30:00.000Z']],
  ['Antarctica/Troll', '2026-10-25', '30 2 * * *', ['2026-10-25T00:30:00.000Z']],
  ['Antarctica/Troll', '2026-10-25', '0 3 * * *', ['2026-10-25T03:00:00.000Z']],
  [
    'Antarctica/Troll',
    '2026-10-25',
    '*/30 1-2 * * *',
    [
      '2026-10-24T23:00:00.000Z',
      '2026-10-24T23:30:00.000Z',
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:30:00.000Z',
    ],
  ],
];

const localDay = (zone: string, ms: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, dateStyle: 'short' }).format(new Date(ms));

/** Every occurrence in `[fromMs, toMs)`, walked with `next()`. */
function chain(cron: string, zone: string, fromMs: number, toMs: number): number[] {
  const schedule = compileCron('spec', cron, zone, fromMs);
  const out: number[] = [];
  for (let at = schedule.next(fromMs - 1); at !== undefined && at < toMs; at = schedule.next(at))
    out.push(at);
  return out;
}

describe('DST: a fall-back repeat of 30 minutes or of two hours', () => {
  it.each(TABLE)(
    '%s %s %s fires each wall time once, at its first instant',
    (zone, day, cron, fires) => {
      const [y, m, d] = day.split('-').map(Number) as [number, number, number];
      const from = Date.UTC(y, m - 1, d - 1, 0);
      const onDay = chain(cron, zone, from, from + 3 * 86_400_000)
        .filter((at) => localDay(zone, at) === day)
        .map((at) => new Date(at).toISOString());
      expect(onDay).toEqual(fires);
    },
  );

  it.each([
    ['Australia/Lord_Howe', '2026-04-04T10:00:00Z'],
    ['Antarctica/Troll', '2026-10-24T20:00:00Z'],
  ])(
    '%s from %s: next(ref) from any reference is the first occurrence of the walk after it',
    (tz, start) => {
      const from = Date.parse(start);
      for (const cron of [
        '45 1 * * *',
        '*/10 1 * * *',
        '*/20 0-3 * * *',
        '* * * * *',
        '0 2 * * *',
      ]) {
        const schedule = compileCron('spec', cron, tz, from);
        const walked = chain(cron, tz, from - 3_600_000, from + 2 * 86_400_000);
        expect(new Set(walked).size).toBe(walked.length);
        for (let ref = from; ref < from + 8 * 3_600_000; ref += 7 * 60_000 + 13_000) {
          const expected = walked.find((c) => c > ref);
          expect([cron, ref, schedule.next(ref)]).toEqual([cron, ref, expected]);
        }
      }
    },
  );
});
