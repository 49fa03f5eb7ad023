import { task } from '../declare/task';
import { compileCron } from './cron-schedule';

const FROM = Date.UTC(2026, 0, 1); // a Thursday; 01:00 in Berlin

/** The first five occurrences after FROM in Europe/Berlin, as ISO strings. */
function walk(cron: string): string[] {
  const schedule = compileCron('spec', cron, 'Europe/Berlin', FROM);
  const out: string[] = [];
  let at = FROM;
  for (let i = 0; i < 5; i++) {
    at = schedule.next(at) as number;
    out.push(new Date(at).toISOString());
  }
  return out;
}

const iso = (...at: string[]): string[] => at.map((a) => `2026-01-${a}.000Z`);

/**
 * Expressions `@Cron` (the `cron` package under `@nestjs/schedule`) takes beyond the `CronExpression` constants, with
 * the instants it fires them at in Europe/Berlin from FROM: `@Task` must take each one and fire it at the same ones.
 */
const NEST_SPELLINGS: readonly (readonly [cron: string, fires: string[]])[] = [
  ['@minutely', iso('01T00:01:00', '01T00:02:00', '01T00:03:00', '01T00:04:00', '01T00:05:00')],
  ['@secondly', iso('01T00:00:01', '01T00:00:02', '01T00:00:03', '01T00:00:04', '01T00:00:05')],
  ['@weekdays', iso('01T23:00:00', '04T23:00:00', '05T23:00:00', '06T23:00:00', '07T23:00:00')],
  ['@weekends', iso('02T23:00:00', '03T23:00:00', '09T23:00:00', '10T23:00:00', '16T23:00:00')],
  // a step from a start, with no range: from the start to the field's end
  ['0/15 * * * *', iso('01T00:15:00', '01T00:30:00', '01T00:45:00', '01T01:00:00', '01T01:15:00')],
  [
    '5/20 * * * * *',
    iso('01T00:00:05', '01T00:00:25', '01T00:00:45', '01T00:01:05', '01T00:01:25'),
  ],
  [
    '0 0/30 9-17 * * *',
    iso('01T08:00:00', '01T08:30:00', '01T09:00:00', '01T09:30:00', '01T10:00:00'),
  ],
  ['30 2/6 * * *', iso('01T01:30:00', '01T07:30:00', '01T13:30:00', '01T19:30:00', '02T01:30:00')],
  [
    '0 0 12 1/2 * *',
    iso('01T11:00:00', '03T11:00:00', '05T11:00:00', '07T11:00:00', '09T11:00:00'),
  ],
  [
    '0 0 1/10 * *',
    [
      '2026-01-10T23:00:00.000Z',
      '2026-01-20T23:00:00.000Z',
      '2026-01-30T23:00:00.000Z',
      '2026-01-31T23:00:00.000Z',
      '2026-02-10T23:00:00.000Z',
    ],
  ],
  [
    '0 0 1 1/4 *',
    [
      '2026-04-30T22:00:00.000Z',
      '2026-08-31T22:00:00.000Z',
      '2026-12-31T23:00:00.000Z',
      '2027-04-30T22:00:00.000Z',
      '2027-08-31T22:00:00.000Z',
    ],
  ],
  // weekdays 1, 3, 5 and 7 (Sunday), as `cron` reads 1/2 over 0-7
  ['0 0 * * 1/2', iso('01T23:00:00', '03T23:00:00', '04T23:00:00', '06T23:00:00', '08T23:00:00')],
  // the start named, as `cron` takes it: the same days, the same months
  ['0 0 * * MON/2', iso('01T23:00:00', '03T23:00:00', '04T23:00:00', '06T23:00:00', '08T23:00:00')],
  ['0 0 * * mon/2', iso('01T23:00:00', '03T23:00:00', '04T23:00:00', '06T23:00:00', '08T23:00:00')],
  [
    '0 0 1 JAN/4 *',
    [
      '2026-04-30T22:00:00.000Z',
      '2026-08-31T22:00:00.000Z',
      '2026-12-31T23:00:00.000Z',
      '2027-04-30T22:00:00.000Z',
      '2027-08-31T22:00:00.000Z',
    ],
  ],
];

describe("@Cron's own spellings: the nicknames and a step from a start", () => {
  it.each(NEST_SPELLINGS)('%s fires where @Cron fires it', (cron, fires) => {
    expect(walk(cron)).toEqual(fires);
  });

  it('keeps the expression as declared on the task', () => {
    const weekdays = task({
      name: 'cron-nest-spellings.weekdays',
      cron: '@weekdays',
      tz: 'UTC',
      enqueue: () => [],
    });
    expect(weekdays.cron).toBe('@weekdays');
  });

  it('still refuses a step from a start past the field’s end, a step of zero and a nickname nobody has', () => {
    expect(() => compileCron('spec', '0 70/5 * * *', 'UTC', FROM)).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => compileCron('spec', '0/0 * * * *', 'UTC', FROM)).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    for (const word of ['@fortnightly', 'constructor', 'toString'])
      expect(() => compileCron('spec', word, 'UTC', FROM)).toThrow(
        expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
      );
  });
});
