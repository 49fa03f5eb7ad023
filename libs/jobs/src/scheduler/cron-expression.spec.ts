import { CronExpression } from '@nestjs/schedule';
import { task } from '../declare/task';
import { compileCron } from './cron-schedule';

const FROM = Date.UTC(2026, 0, 1);
const constants = Object.entries(CronExpression) as [string, string][];

/** `@nestjs/schedule`'s `CronExpression` constants are plain strings: every one of them is a cron `task()` takes. */
describe('CronExpression constants', () => {
  it('are all here: the enum is not empty, and some carry a seconds field', () => {
    expect(constants.length).toBeGreaterThan(50);
    expect(constants.some(([, cron]) => cron.trim().split(/\s+/).length === 6)).toBe(true);
  });

  it.each(constants)('%s (%s) compiles in a zone and fires', (name, cron) => {
    const schedule = compileCron(`CronExpression.${name}`, cron, 'Europe/Berlin', FROM);
    const first = schedule.next(FROM);
    expect(first).toBeGreaterThan(FROM);
    expect(schedule.next(first ?? FROM)).toBeGreaterThan(first ?? FROM);
  });

  it('reads the seconds field of a 6-field constant as seconds', () => {
    const schedule = compileCron('spec', CronExpression.EVERY_30_SECONDS, 'UTC', FROM);
    expect(schedule.next(FROM)).toBe(FROM + 30_000);
    expect(compileCron('spec', CronExpression.EVERY_DAY_AT_3AM, 'UTC', FROM).next(FROM)).toBe(
      FROM + 3 * 3_600_000,
    );
  });

  it('is accepted by task() as its cron, typed', () => {
    const nightly = task({
      name: 'cron-expression.nightly',
      cron: CronExpression.EVERY_DAY_AT_MIDNIGHT,
      tz: 'UTC',
      enqueue: () => [],
    });
    expect(nightly.cron).toBe('0 0 * * *');
  });
});
