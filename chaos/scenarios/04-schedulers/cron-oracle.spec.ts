import { expectedOccurrences, localInstant } from './cron-oracle';

const iso = (ms: readonly number[]): string[] => ms.map((at) => new Date(at).toISOString());
const HOUR = 3_600_000;

/** The oracle scenario 4 judges by, checked against the switch-day table of docs/dst.md (2026). */
describe('scenario 4 cron oracle', () => {
  it.each([
    ['America/New_York', '2026-03-08', '30 2 * * *', ['2026-03-08T07:30:00.000Z']],
    ['America/New_York', '2026-03-08', '30 1 * * *', ['2026-03-08T06:30:00.000Z']],
    ['Europe/Berlin', '2026-03-29', '30 2 * * *', ['2026-03-29T01:30:00.000Z']],
    ['America/New_York', '2026-11-01', '30 1 * * *', ['2026-11-01T05:30:00.000Z']],
    ['America/New_York', '2026-11-01', '30 2 * * *', ['2026-11-01T07:30:00.000Z']],
    ['Europe/Berlin', '2026-10-25', '30 2 * * *', ['2026-10-25T00:30:00.000Z']],
    ['Europe/Berlin', '2026-10-25', '0 2 * * *', ['2026-10-25T00:00:00.000Z']],
  ])('%s %s %s fires once, where the table says', (tz, day, cron, fires) => {
    const from = localInstant(tz, day, '00:00');
    expect(iso(expectedOccurrences(cron, tz, from, from + 20 * HOUR))).toEqual(fires);
  });

  it('merges a gap-shifted hourly time with the hour it lands on, and skips the repeated hour', () => {
    const spring = localInstant('Europe/Berlin', '2026-03-29', '01:00');
    expect(
      iso(expectedOccurrences('15,45 * * * *', 'Europe/Berlin', spring, spring + 3 * HOUR)),
    ).toEqual([
      '2026-03-29T00:15:00.000Z',
      '2026-03-29T00:45:00.000Z',
      '2026-03-29T01:15:00.000Z', // 02:15 (gap) and 03:15 CEST are one instant
      '2026-03-29T01:45:00.000Z',
      '2026-03-29T02:15:00.000Z',
      '2026-03-29T02:45:00.000Z',
    ]);
    const fall = localInstant('America/New_York', '2026-11-01', '00:00');
    const everyMinute = expectedOccurrences('* * * * *', 'America/New_York', fall, fall + 5 * HOUR);
    // five real hours hold four wall hours: 01:00-01:59 EST repeat what already fired at EDT
    expect(everyMinute).toHaveLength(240);
    expect(
      everyMinute.filter(
        (at) => at > Date.parse('2026-11-01T06:00:00Z') && at < Date.parse('2026-11-01T07:00:00Z'),
      ),
    ).toEqual([]);
  });
});
