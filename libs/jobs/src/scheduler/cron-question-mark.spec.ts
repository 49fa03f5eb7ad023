import { task } from '../declare/task';
import { compileCron } from './cron-schedule';
import { nextTaskRun } from './occurrences';

const FROM = Date.UTC(2026, 0, 1); // a Thursday

/** The first `n` occurrences after FROM, as ISO strings. */
function walk(cron: string, tz: string, n: number): string[] {
  const schedule = compileCron('spec', cron, tz, FROM);
  const out: string[] = [];
  let at = FROM;
  for (let i = 0; i < n; i++) {
    at = schedule.next(at) as number;
    out.push(new Date(at).toISOString());
  }
  return out;
}

// `?` is "no specific value" (Quartz, Spring, EventBridge): the other day field alone decides. croner reads it as a
// list of every day that is NOT a wildcard, so the two day fields were OR-ed and the task fired every day.
describe('a day field written ?', () => {
  it('leaves the weekday alone to decide: 0 0 12 ? * MON fires on Mondays only', () => {
    expect(walk('0 0 12 ? * MON', 'UTC', 3)).toEqual([
      '2026-01-05T12:00:00.000Z',
      '2026-01-12T12:00:00.000Z',
      '2026-01-19T12:00:00.000Z',
    ]);
  });

  it('leaves the day of month alone to decide: 0 12 15 * ? fires on the 15th only', () => {
    expect(walk('0 12 15 * ?', 'UTC', 2)).toEqual([
      '2026-01-15T12:00:00.000Z',
      '2026-02-15T12:00:00.000Z',
    ]);
  });

  it('reads the same through a spring-forward gap in a zone (Berlin, Sunday 29 March 2026)', () => {
    const schedule = compileCron('spec', '*/30 2 ? * SUN', 'Europe/Berlin', FROM);
    const first = schedule.next(Date.UTC(2026, 2, 28, 12)) as number;
    expect(new Date(first).toISOString()).toBe('2026-03-29T01:00:00.000Z'); // 02:00 shifted to 03:00 CEST
    const second = schedule.next(first) as number;
    expect(new Date(second).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(new Date(schedule.next(second) as number).toISOString()).toBe(
      '2026-04-05T00:00:00.000Z',
    );
  });

  it('refuses an impossible date written with it, as written with *', () => {
    expect(() => compileCron('spec', '0 0 31 2 ?', 'UTC', FROM)).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
  });

  it('is what a task() declared with it resolves to', () => {
    const weekly = task({
      name: 'cron-question-mark.weekly',
      cron: '0 9 ? * MON',
      tz: 'UTC',
      enqueue: () => [],
    });
    expect(new Date(nextTaskRun(weekly, FROM) as number).toISOString()).toBe(
      '2026-01-05T09:00:00.000Z',
    );
    expect(weekly.cron).toBe('0 9 ? * MON');
  });
});
